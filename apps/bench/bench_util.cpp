#include "apps/bench/bench_util.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <utility>
#include <vector>

namespace rlzoo::cli {

namespace {
// One timed repeat: calls `work` until `seconds` have passed; units per second.
double timed_rate(const std::function<void()>& work, double units_per_call, double seconds) {
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  double elapsed = 0;
  long calls = 0;
  do {
    work();
    ++calls;
    elapsed = std::chrono::duration<double>(clock::now() - start).count();
  } while (elapsed < seconds);
  return static_cast<double>(calls) * units_per_call / elapsed;
}
}  // namespace

double median_rate(const std::function<void()>& work, double units_per_call, double seconds, int repeats) {
  work();  // warm-up: caches, page faults, thread start
  std::vector<double> rates;
  for (int r = 0; r < repeats; ++r) rates.push_back(timed_rate(work, units_per_call, seconds));
  return median(std::move(rates));
}

PairedRates paired_median_rates(const std::function<void()>& work, double units_per_call,
                                const std::function<void()>& baseline, double baseline_units_per_call, double seconds,
                                int repeats) {
  baseline();  // warm-up
  work();
  std::vector<double> rates, baseline_rates, ratios;
  for (int r = 0; r < repeats; ++r) {
    baseline_rates.push_back(timed_rate(baseline, baseline_units_per_call, seconds));
    rates.push_back(timed_rate(work, units_per_call, seconds));
    ratios.push_back(rates.back() / baseline_rates.back());
  }
  return {median(rates), median(baseline_rates), median(ratios)};
}

double median(std::vector<double> values) {
  if (values.empty()) return std::nan("");
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

void print_bench_line(const std::string& name, double value, const std::string& unit, const nlohmann::json& baseline,
                      const nlohmann::json& extra) {
  nlohmann::json j{{"bench", name}, {"value", value}, {"unit", unit}, {"baseline", baseline}};
  for (auto it = extra.begin(); it != extra.end(); ++it) j[it.key()] = it.value();
  std::cout << j.dump() << std::endl;
}

}  // namespace rlzoo::cli
