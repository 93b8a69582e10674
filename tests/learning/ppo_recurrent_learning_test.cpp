// Recurrent PPO learns a task that needs memory (label `learning`, one LibTorch thread):
// CartPoleNoVel-v1 hides the velocities, so a feed-forward policy cannot tell which way the
// pole is moving, while an LSTM infers it from the observations before.
#include <gtest/gtest.h>

#include <chrono>

#include "tests/learning/reach_target.h"

namespace rlzoo {
namespace {

struct Outcome {
  double best_mean;       // best mean return of the evaluations (20 deterministic episodes each)
  std::int64_t steps;     // env steps trained (stops at the first evaluation >= the target)
};

// configs/ppo/CartPoleNoVel-v1.yaml with `overrides`, evaluated every 10k env steps, stopped at
// the first evaluation >= 400 or after `budget` steps.
Outcome train(const std::string& label, std::int64_t seed, std::int64_t budget, std::vector<std::string> overrides) {
  register_builtin_envs();
  register_builtin_algorithms();
  const auto t0 = std::chrono::steady_clock::now();
  overrides.insert(overrides.end(), {"seed=" + std::to_string(seed), "torch_threads=1"});
  auto agent = Agent::from_preset(test::source_dir() + "/configs/ppo/CartPoleNoVel-v1.yaml", overrides);
  agent->set_progress_bar(false);
  CallbackList callbacks;
  auto eval = std::make_unique<EvalCallback>(10'000, 20, "", 400.0, /*stop=*/true);
  const EvalCallback* e = eval.get();
  callbacks.add(std::move(eval));
  agent->learn(budget, &callbacks);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::cout << "[learning] CartPoleNoVel-v1 " << label << " seed " << seed << ": best mean return " << e->best_mean()
            << " after " << agent->num_timesteps() << " env steps, " << seconds << " s" << std::endl;
  return {e->best_mean(), agent->num_timesteps()};
}

// The zoo's RecurrentPPO values (LSTM 64, its own LSTM for the critic), and the same preset
// with policy.recurrent.cell=none, on the same budget of 100k steps. Measured on this project's
// 2-core machine (AVX2 kernel), seeds 0-4: the LSTM's evaluations first reach >= 400 at 40k, 50k,
// 50k, 40k and 20k steps (35-60 s); the feed-forward policy's evaluations stay at 37-44 all the
// way (8-10 s). Under the AVX-512 kernels seed 0's LSTM peaked at 371 in 100k steps: the LSTM's
// success is asserted for 2 of the seeds 0-2, the feed-forward policy's failure for each seed run.
TEST(PpoRecurrentLearning, LstmSolvesCartPoleNoVelWhereAFeedForwardPolicyCannot) {
  test::expect_k_of_n(2, 3, "CartPoleNoVel-v1 LSTM vs MLP", [](std::int64_t seed) {
    const Outcome lstm = train("LSTM", seed, 100'000, {});
    const Outcome mlp = train("MLP", seed, 100'000, {"hyperparams.policy.recurrent.cell=none"});
    EXPECT_LT(mlp.best_mean, 100.0) << "seed " << seed;
    EXPECT_GE(mlp.steps, 100'000) << "seed " << seed;
    return test::SeedOutcome{lstm.best_mean >= 400.0,
                             "LSTM best mean return " + std::to_string(lstm.best_mean) + " (>= 400) after " +
                                 std::to_string(lstm.steps) + " steps, MLP " + std::to_string(mlp.best_mean) +
                                 " (< 100)"};
  });
}

// The same preset on 2 actor threads of 4 envs each (the learner re-runs each round from the
// actors' states; each actor normalises with its own step-by-step statistics). Measured on the
// 2-core machine, seeds 0-3, stopping at the first evaluation >= 400: all pass, at 20k-80k
// steps under AVX-512 (15-58 s) and at 20k-50k under AVX2 (Haswell).
TEST(PpoRecurrentLearning, LstmOnTwoActorThreadsSolvesCartPoleNoVel) {
  test::expect_k_of_n(2, 3, "CartPoleNoVel-v1 LSTM on 2 actor threads", [](std::int64_t seed) {
    const Outcome lstm = train("LSTM, 2 actor threads", seed, 100'000, {"runtime.actors=2", "runtime.envs_per_actor=4"});
    return test::SeedOutcome{lstm.best_mean >= 400.0, "best mean return " + std::to_string(lstm.best_mean) +
                                                          " (>= 400) after " + std::to_string(lstm.steps) + " steps"};
  });
}

}  // namespace
}  // namespace rlzoo
