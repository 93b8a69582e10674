// The shared shape of the learning tests: train a preset per seed until an evaluation reaches
// a target (or a step budget runs out), print what happened, and check it took under 3 minutes.
// Seeds: 0, or the comma-separated list in RLZOO_LEARNING_SEEDS (tests/support/seeds.h).
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "rl/agent.h"
#include "algorithms/builtin.h"
#include "envs/builtin.h"
#include "tests/support/seeds.h"
#include "tests/support/test_paths.h"

namespace rlzoo::test {

// Sanitizer builds run several times slower (scripts/test-asan --all): the wall-clock bound is
// the plain build's, scaled. GCC defines __SANITIZE_ADDRESS__ / __SANITIZE_THREAD__.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr double kSanitizerSlowdown = 3.0;
#else
inline constexpr double kSanitizerSlowdown = 1.0;
#endif

// Trains `preset` (relative to the source tree) for up to `budget` env steps per seed with one
// LibTorch thread, evaluating on 20 deterministic episodes every `eval_every` steps and
// stopping at the first evaluation >= `target`; expects that evaluation and < max_seconds.
inline void expect_reaches_target(const std::string& preset, const std::string& label, std::int64_t budget,
                                  std::int64_t eval_every, double target, double max_seconds = 180.0) {
  register_builtin_envs();
  register_builtin_algorithms();
  for (const std::int64_t seed : learning_seeds()) {
    const auto t0 = std::chrono::steady_clock::now();
    auto agent = Agent::from_preset(source_dir() + "/" + preset, {"seed=" + std::to_string(seed), "torch_threads=1"});
    agent->set_progress_bar(false);
    CallbackList callbacks;
    auto eval = std::make_unique<EvalCallback>(eval_every, 20, "", target, /*stop=*/true);
    const EvalCallback* e = eval.get();
    callbacks.add(std::move(eval));
    agent->learn(budget, &callbacks);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::cout << "[learning] " << label << " seed " << seed << ": best mean return " << e->best_mean() << " after "
              << agent->num_timesteps() << " env steps, " << seconds << " s" << std::endl;
    EXPECT_GE(e->best_mean(), target) << "seed " << seed;
    EXPECT_LT(seconds, max_seconds * kSanitizerSlowdown) << "seed " << seed;
  }
}

}  // namespace rlzoo::test
