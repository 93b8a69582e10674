// Helpers for `rlzoo bench`: timing with repeats and one JSON object per printed line.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace rlzoo::cli {

// Runs `work` (which performs `units_per_call` units, e.g. env steps) repeatedly for about
// `seconds`, `repeats` times, and returns the median rate in units per second.
double median_rate(const std::function<void()>& work, double units_per_call, double seconds, int repeats);

// A figure and its baseline timed in alternation: each repeat times the baseline and then the
// work, and the ratio is the median of the per-repeat ratios. On a shared machine whose speed
// drifts within a run, adjacent timings see the same machine; one baseline timed at the start
// of a run did not (ratios of the same binary varied by 0.72-0.86 between runs).
struct PairedRates {
  double rate = 0, baseline_rate = 0, ratio = 0;  // medians over the repeats
};
PairedRates paired_median_rates(const std::function<void()>& work, double units_per_call,
                                const std::function<void()>& baseline, double baseline_units_per_call, double seconds,
                                int repeats);

// The median of `values` (the upper of the two middle values for an even count); NaN when empty.
double median(std::vector<double> values);

// Prints {"bench": name, "value": value, "unit": unit, "baseline": baseline, ...extra}.
void print_bench_line(const std::string& name, double value, const std::string& unit, const nlohmann::json& baseline,
                      const nlohmann::json& extra = nlohmann::json::object());

}  // namespace rlzoo::cli
