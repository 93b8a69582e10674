// What the hot-path counting programs share: a region counted by callgrind, the --only
// option, and the raw baseline every path is divided by.
//
// Each region runs once uncounted (first-call allocations, lazy set-up), then the instruction
// counters are zeroed, the region runs again with collection on, and callgrind dumps the counts
// under the region's name. Valgrind is started with --instr-atstart=no --collect-atstart=no:
// outside the regions the program runs uninstrumented (LibTorch's start-up took 50 s
// instrumented, 8 s without). stdout says
// how many units (steps, calls, decisions) the counted run did: "region NAME UNITS".
// tests/perf/hotpath_guard_test.cpp reads both.
#pragma once

#include <valgrind/callgrind.h>

#include <cstdint>
#include <cstring>
#include <iostream>
#include <set>
#include <sstream>
#include <string>

#include "apps/bench/raw_cartpole.h"

namespace rlzoo::hotpaths {

template <class F>
void region(const char* name, std::int64_t units, F&& run) {
  run();
  CALLGRIND_START_INSTRUMENTATION;
  CALLGRIND_ZERO_STATS;
  CALLGRIND_TOGGLE_COLLECT;
  run();
  CALLGRIND_TOGGLE_COLLECT;
  CALLGRIND_DUMP_STATS_AT(name);
  CALLGRIND_STOP_INSTRUMENTATION;
  std::cout << "region " << name << " " << units << std::endl;
}

// `--only a,b,...`: count those regions alone (default: all of them). Exits on a bad argument.
class Selection {
 public:
  Selection(int argc, char** argv) {
    for (int i = 1; i < argc; ++i) {
      if (std::strcmp(argv[i], "--only") != 0 || i + 1 == argc) {
        std::cerr << "usage: " << argv[0] << " [--only REGION,REGION,...]\n";
        std::exit(2);
      }
      std::istringstream list(argv[++i]);
      for (std::string name; std::getline(list, name, ',');) only_.insert(name);
    }
  }
  bool wants(const std::string& name) const { return only_.empty() || only_.count(name) > 0; }

 private:
  std::set<std::string> only_;
};

inline volatile double g_sink = 0;

// The baseline: `rlzoo bench env`'s raw inline CartPole loop, 20,000 steps.
inline void count_raw_cartpole(const Selection& selection) {
  if (!selection.wants("raw_cartpole")) return;
  const auto actions = bench::random_cartpole_actions(1 << 16);
  constexpr std::int64_t kSteps = 20000;
  bench::RawCartPole raw;
  raw.reset();
  std::int64_t t = 0;
  region("raw_cartpole", kSteps, [&] { g_sink = g_sink + raw.run(actions, kSteps, t); });
}

}  // namespace rlzoo::hotpaths
