// check_algorithm (rl/algorithm_conformance.h) over every registered algorithm, each on a
// small env with short-run settings. A newly registered algorithm without settings here fails
// the coverage test, so it cannot skip the check.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>

#include "rl/algorithm_conformance.h"
#include "rl/algorithm_registry.h"
#include "tests/support/builtin_registries.h"
#include "tests/support/cartpole_dataset.h"
#include "tests/support/test_paths.h"

namespace rlzoo {
namespace {

AlgorithmCheckOptions settings(std::string env, std::vector<std::string> overrides, std::int64_t timesteps) {
  AlgorithmCheckOptions o;
  o.env = std::move(env);
  o.overrides = std::move(overrides);
  o.timesteps = timesteps;
  return o;
}

// The ids the suite below is instantiated with (sorted), the keys of checked_algorithms().
std::vector<std::string> checked_ids() {
  return {"bc",  "belief_oracle", "belief_ppo", "ddpg",  "dmc",   "dqn", "dt",     "gpomdp",
          "ppo", "sac",           "secbad",     "srvrpg", "storm_pg", "svrpg", "td3", "varibad"};
}

// Short-run settings per algorithm: a few cycles of each in well under a second or two.
std::map<std::string, AlgorithmCheckOptions> checked_algorithms() {
  const std::vector<std::string> ppo{"hyperparams.n_envs=2", "hyperparams.n_steps=32", "hyperparams.batch_size=32",
                                     "hyperparams.n_epochs=1"};
  const std::vector<std::string> dqn{"hyperparams.learning_starts=32", "hyperparams.train_freq=16",
                                     "hyperparams.gradient_steps=2", "hyperparams.buffer_size=1000",
                                     "hyperparams.batch_size=16"};
  const std::vector<std::string> pg{"hyperparams.batch_size=2", "hyperparams.initial_batch=2", "hyperparams.horizon=30"};
  const std::vector<std::string> belief{"hyperparams.ppo.n_envs=2", "hyperparams.ppo.n_steps=60",
                                        "hyperparams.ppo.batch_size=60", "hyperparams.ppo.n_epochs=1",
                                        "hyperparams.vae.pretrain_frames=0", "hyperparams.vae.batch_episodes=2",
                                        "hyperparams.vae.updates_per_iteration=1"};
  const std::string data = test::write_cartpole_dataset();
  const std::vector<std::string> dt{"hyperparams.dataset=" + data, "hyperparams.context=5", "hyperparams.width=16",
                                    "hyperparams.layers=1", "hyperparams.batch_size=8", "hyperparams.warmup_steps=4"};
  const std::vector<std::string> bc{"hyperparams.dataset=" + data, "hyperparams.batch_size=8",
                                    "hyperparams.warmup_steps=4"};
  std::map<std::string, AlgorithmCheckOptions> m;
  m["ppo"] = settings("CartPole-v1", ppo, 128);
  m["dqn"] = settings("CartPole-v1", dqn, 128);
  const std::vector<std::string> off_policy_continuous{
      "hyperparams.learning_starts=32", "hyperparams.train_freq=16", "hyperparams.gradient_steps=2",
      "hyperparams.buffer_size=1000",   "hyperparams.batch_size=16",  "hyperparams.policy.hidden=[16, 16]"};
  m["sac"] = settings("Pendulum-v1", off_policy_continuous, 128);
  m["ddpg"] = settings("Pendulum-v1", off_policy_continuous, 128);
  auto td3 = off_policy_continuous;
  td3.push_back("hyperparams.action_noise=ornstein_uhlenbeck");  // resumes exactly with OU noise too
  m["td3"] = settings("Pendulum-v1", td3, 128);
  for (const char* id : {"gpomdp", "svrpg", "srvrpg", "storm_pg"}) m[id] = settings("CartPole-v1", pg, 120);
  for (const char* id : {"secbad", "varibad", "belief_oracle", "belief_ppo"})
    m[id] = settings("SecbadGrid-v0", belief, 240);
  m["dt"] = settings("CartPole-v1", dt, 8);
  m["bc"] = settings("CartPole-v1", bc, 8);
  m["dmc"] = settings("DouDizhu-v0",
                      {"runtime.envs_per_actor=2", "runtime.inference.max_batch=0", "hyperparams.batch_size=2",
                       "hyperparams.unroll_length=10", "hyperparams.eval_every=0"},
                      80);
  return m;
}

TEST(CheckAlgorithm, EveryRegisteredAlgorithmHasSettingsHere) {
  test::register_builtins();
  const auto checked = checked_algorithms();
  std::vector<std::string> keys;
  for (const auto& [id, o] : checked) keys.push_back(id);
  EXPECT_EQ(keys, checked_ids());  // the instantiated list is the settings' list
  for (const std::string& id : algorithm_registry().names()) {
    if (id.starts_with("toy_")) continue;  // the test-only toys: toy_reinforce_test.cpp
    EXPECT_TRUE(checked.count(id)) << id;
  }
}

class CheckAlgorithm : public ::testing::TestWithParam<std::string> {};

TEST_P(CheckAlgorithm, Passes) {
  test::register_builtins();
  const std::string id = GetParam();
  AlgorithmCheckOptions options = checked_algorithms().at(id);
  options.overrides.insert(options.overrides.end(), {"seed=0", "log_every=1000000", "eval.every=0"});
  options.work_dir = test::make_temp_dir("rlzoo-check-" + id);
  const AlgorithmCheckReport report = check_algorithm(id, options);
  std::cout << report.summary();  // names each check and backend
  EXPECT_TRUE(report.ok()) << report.summary();
  EXPECT_THAT(report.passed, ::testing::Contains("save_load_act"));
}

// SAC with gSDE on every backend: exploration matrices per env on actor threads, and exact
// resume with them (a new matrix every 4 steps and every round).
TEST(CheckAlgorithm, SacWithGsdePasses) {
  test::register_builtins();
  AlgorithmCheckOptions options = checked_algorithms().at("sac");
  options.overrides.insert(options.overrides.end(), {"seed=0", "log_every=1000000", "eval.every=0",
                                                     "hyperparams.use_sde=true", "hyperparams.sde_sample_freq=4"});
  options.work_dir = test::make_temp_dir("rlzoo-check-sac-gsde");
  const AlgorithmCheckReport report = check_algorithm("sac", options);
  EXPECT_TRUE(report.ok()) << report.summary();
  EXPECT_THAT(report.passed, ::testing::Contains("exact_resume"));
  EXPECT_THAT(report.passed, ::testing::Contains("learn[threads]"));
}

// Each instance is named by its algorithm id (CheckAlgorithm.Passes/ppo, ...).
INSTANTIATE_TEST_SUITE_P(EveryRegisteredAlgorithm, CheckAlgorithm, ::testing::ValuesIn(checked_ids()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace
}  // namespace rlzoo
