// PPO on the actor/learner runtime: parallel rollouts with actor replicas or the inference
// server, Discrete and Box actions, and the config errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "rl/agent.h"
#include "algorithms/builtin.h"
#include "algorithms/ppo/ppo.h"
#include "envs/builtin.h"
#include "tests/support/test_paths.h"

namespace rlzoo {
namespace {

using ::testing::HasSubstr;

class PpoRuntime : public ::testing::Test {
 protected:
  void SetUp() override {
    register_builtin_envs();
    register_builtin_algorithms();
  }
};

std::vector<std::string> small_actor_preset(const std::string& max_batch) {
  return {"seed=2",
          "n_timesteps=2000",
          "runtime.actors=2",
          "runtime.envs_per_actor=2",
          "runtime.inference.max_batch=" + max_batch,
          "hyperparams.n_steps=16",
          "hyperparams.batch_size=32",
          "hyperparams.n_epochs=2",
          "hyperparams.policy.hidden=[16, 16]"};
}

TEST_F(PpoRuntime, ParallelRolloutsUpdateThePolicy) {
  for (const std::string env : {"CartPole-v1", "Pendulum-v1"})
    for (const std::string max_batch : {"0", "4"}) {
      SCOPED_TRACE(env + " inference.max_batch=" + max_batch);
      auto agent = make_agent("ppo", env, small_actor_preset(max_batch));
      agent->set_progress_bar(false);
      auto& ppo = dynamic_cast<PpoAgent&>(*agent);
      const auto before = ppo.policy()->parameters()[0].clone();
      // Rounds of 16 steps x 4 envs: 4 rounds, 4 updates of 2 epochs x 2 minibatches.
      agent->learn(256);
      EXPECT_EQ(agent->num_timesteps(), 256);
      EXPECT_FALSE(torch::equal(before, ppo.policy()->parameters()[0])) << "no update";
      agent->learn(64);  // a second learn() continues with a new fleet
      EXPECT_EQ(agent->num_timesteps(), 320);
      // The agent still acts and saves like a synchronous one.
      const auto a = agent->act(torch::zeros({3, env == "CartPole-v1" ? 4 : 3}));
      EXPECT_EQ(a.size(0), 3);
    }
}

// With normalize_obs the actors normalise with the statistics published beside the weights, and
// the learner folds every round's observations in once, after recording it.
TEST_F(PpoRuntime, NormalisedObservationsOnActorsFoldEveryStepIntoTheStatistics) {
  auto opts = small_actor_preset("0");
  opts.push_back("hyperparams.normalize_obs=true");
  auto agent = make_agent("ppo", "Pendulum-v1", opts);
  agent->set_progress_bar(false);
  agent->learn(256);  // 4 rounds of 16 steps x 4 envs
  const auto state = nlohmann::json::parse(agent->checkpoint().files().at("state.json"));
  const double count = state.at("obs_normalizer").at("count").get<double>();
  EXPECT_NEAR(count, 256.0, 0.01);  // every observation once (the statistics start from a count of 1e-4)
  const auto mean = state.at("obs_normalizer").at("mean").get<std::vector<double>>();
  ASSERT_EQ(mean.size(), 3u);
  EXPECT_NE(mean[2], 0.0);  // the angular velocity's running mean moved off its start
  EXPECT_EQ(agent->act(torch::zeros({2, 3})).size(0), 2);
}

// MuJoCo observations are float64: the actors normalise them and hand the network rows of the
// same layout, while the learner trains on the float32 values sent beside them.
TEST_F(PpoRuntime, NormalisedFloat64ObservationsOnActors) {
  auto opts = small_actor_preset("4");
  opts.push_back("hyperparams.normalize_obs=true");
  auto agent = make_agent("ppo", "InvertedPendulum-v4", opts);
  ASSERT_EQ(agent->env_spec().observation_space.dtype(), DType::Float64);
  agent->set_progress_bar(false);
  agent->learn(256);
  const auto state = nlohmann::json::parse(agent->checkpoint().files().at("state.json"));
  EXPECT_NEAR(state.at("obs_normalizer").at("count").get<double>(), 256.0, 0.01);
}

TEST_F(PpoRuntime, ConfigErrorsNameTheKey) {
  auto opts = small_actor_preset("0");
  opts.push_back("hyperparams.n_envs=8");
  EXPECT_THAT(test::error_of([&] { make_agent("ppo", "CartPole-v1", opts); }), HasSubstr("hyperparams.n_envs"));
}

}  // namespace
}  // namespace rlzoo
