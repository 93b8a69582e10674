#include "apps/bench/bench_util.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <utility>
#include <vector>

namespace rlzoo::cli {

double median_rate(const std::function<void()>& work, double units_per_call, double seconds, int repeats) {
  using clock = std::chrono::steady_clock;
  work();  // warm-up: caches, page faults, thread start
  std::vector<double> rates;
  for (int r = 0; r < repeats; ++r) {
    const auto start = clock::now();
    double elapsed = 0;
    long calls = 0;
    do {
      work();
      ++calls;
      elapsed = std::chrono::duration<double>(clock::now() - start).count();
    } while (elapsed < seconds);
    rates.push_back(static_cast<double>(calls) * units_per_call / elapsed);
  }
  return median(std::move(rates));
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
