// PPO learning tests (label `learning`): one LibTorch thread, each well under 3 minutes here.
//
// Budgets were set so that each passes for every one of the seeds listed (tried on this
// project's 2-core machine); BLAS kernels differ between CPUs, so a fixed seed alone is not a
// guarantee — the budgets keep a margin. The test itself runs the first seed.
#include <gtest/gtest.h>

#include <iostream>

#include "rl/agent.h"
#include "algorithms/builtin.h"
#include "envs/builtin.h"
#include "tests/support/seeds.h"
#include "tests/support/test_paths.h"

namespace rlzoo {
namespace {

double train_and_evaluate(const std::string& preset, std::int64_t seed, std::int64_t steps) {
  register_builtin_envs();
  register_builtin_algorithms();
  auto agent = Agent::from_preset(test::source_dir() + "/" + preset,
                                  {"seed=" + std::to_string(seed), "n_timesteps=" + std::to_string(steps)});
  agent->set_progress_bar(false);
  agent->learn(steps);
  const EvalResult r = agent->evaluate(20);
  std::cout << "[learning] " << preset << " seed " << seed << ": " << steps << " steps, mean return "
            << r.mean_return() << " +/- " << r.std_return() << " over 20 episodes" << std::endl;
  return r.mean_return();
}

// configs/ppo/CartPole-v1.yaml (rl-baselines3-zoo's tuned values), 100k steps.
// Seeds tried: 0, 1, 2, 3, 4 — all reached 500.
TEST(PpoLearning, CartPoleReaches475) {
  EXPECT_GE(train_and_evaluate("configs/ppo/CartPole-v1.yaml", 0, 100'000), 475.0);
}

// What a newcomer types first: `rlzoo train ppo CartPole-v1` takes the shipped tuned preset
// (the one above, seed 0), says so, and its run evaluates at the maximum.
TEST(PpoLearning, TrainPpoCartPoleFromTheCommandLineReaches500) {
  const std::string run = test::make_temp_dir("rlzoo-first-run") + "/run";
  const std::string cli = "cd '" + test::source_dir() + "' && '" + test::cli_path() + "' ";
  auto r = test::run_command(cli + "train ppo CartPole-v1 -q --run-dir '" + run + "'");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE((r.out + r.err).find("using the shipped preset configs/ppo/CartPole-v1.yaml"), std::string::npos)
      << r.out << r.err;
  r = test::run_command(cli + "eval '" + run + "' --episodes 20");
  ASSERT_EQ(r.status, 0) << r.err;
  std::cout << "[learning] rlzoo train ppo CartPole-v1, then eval: " << r.out;
  EXPECT_NE(r.out.find("mean return 500"), std::string::npos) << r.out;
}

// configs/ppo/Pendulum-v1.yaml (the zoo's values without gSDE), 100k steps.
// Seeds tried: 0, 1, 2, 3, 4 (results in the README's training table).
TEST(PpoLearning, PendulumReachesMinus300) {
  EXPECT_GE(train_and_evaluate("configs/ppo/Pendulum-v1.yaml", 0, 100'000), -300.0);
}

// The Pendulum preset with normalize_obs (and 20 epochs) on 2 actor threads of 2 envs, in the
// same 100k steps: each actor starts a trajectory from the published statistics and folds its
// observations in step by step, as the inline loop does. Measured on the 2-core machine
// (AVX-512 kernel), final evaluations (20 episodes) of seeds 0-11 from `rlzoo train`: 8 of 12
// >= -250, median -232 (the inline loop with these settings: 3 of 4 seeds; statistics that lag
// one rollout, as before: 0 of 8). This test, best of the evaluations every 10k steps, seeds
// 0-3: 2 of 4 under AVX-512, 3 of 4 under AVX2 (Haswell). About 3 of 5 seeds pass, so 2 of
// the seeds 0-9 must (a healthy run stops after 2 passes, ~20 s each).
TEST(PpoLearning, PendulumWithNormalisedObservationsOnTwoActorThreadsReachesMinus250) {
  test::expect_k_of_n(2, 10, "Pendulum-v1 normalize_obs, 2 actor threads", [](std::int64_t seed) {
    register_builtin_envs();
    register_builtin_algorithms();
    auto agent = Agent::from_preset(test::source_dir() + "/configs/ppo/Pendulum-v1.yaml",
                                    {"seed=" + std::to_string(seed), "torch_threads=1", "hyperparams.normalize_obs=true",
                                     "hyperparams.n_epochs=20", "runtime.actors=2", "runtime.envs_per_actor=2"});
    agent->set_progress_bar(false);
    CallbackList callbacks;
    auto eval = std::make_unique<EvalCallback>(10'000, 20, "", -250.0, /*stop=*/true);
    const EvalCallback* e = eval.get();
    callbacks.add(std::move(eval));
    agent->learn(100'000, &callbacks);
    return test::SeedOutcome{e->best_mean() >= -250.0, "best mean return " + std::to_string(e->best_mean()) +
                                                           " (>= -250) after " +
                                                           std::to_string(agent->num_timesteps()) + " steps"};
  });
}

}  // namespace
}  // namespace rlzoo
