// DQN on the actor/learner runtime: the learner is a function of the rounds it is fed, not of
// how many actor threads made them; actors with their own replicas or a shared inference
// server; config errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <limits>

#include "rl/agent.h"
#include "rl/nets/networks.h"
#include "rl/runtime/module_evaluator.h"
#include "rl/training_monitor.h"
#include "algorithms/builtin.h"
#include "algorithms/dqn/dqn.h"
#include "algorithms/dqn/dqn_actor.h"
#include "core/registry/env_registry.h"
#include "core/runtime/actor_fleet.h"
#include "core/torch/module_parameters.h"
#include "envs/builtin.h"
#include "tests/support/test_paths.h"

namespace rlzoo {
namespace {

using ::testing::HasSubstr;

class DqnRuntime : public ::testing::Test {
 protected:
  void SetUp() override {
    register_builtin_envs();
    register_builtin_algorithms();
  }
};

std::vector<std::string> small(int actors, int envs_per_actor, std::vector<std::string> extra = {}) {
  std::vector<std::string> o{"seed=5",
                             "n_timesteps=2000",
                             "runtime.actors=" + std::to_string(actors),
                             "runtime.envs_per_actor=" + std::to_string(envs_per_actor),
                             "hyperparams.buffer_size=2000",
                             "hyperparams.learning_starts=0",
                             "hyperparams.train_freq=8",
                             "hyperparams.gradient_steps=4",
                             "hyperparams.batch_size=16",
                             "hyperparams.target_update_interval=64",
                             "hyperparams.policy.hidden=[32, 32]"};
  o.insert(o.end(), extra.begin(), extra.end());
  return o;
}

// Feeds `rounds` rounds from a fleet of actors x per_actor CartPole envs, acting epsilon-greedily
// on a fixed network, into a fresh DQN learner; returns the learner's Q-network weights.
ParameterSnapshot learner_after_rounds(int actors, int per_actor, int rounds) {
  auto agent = make_agent("dqn", "CartPole-v1", small(actors, per_actor));
  auto& dqn = dynamic_cast<DqnAgent&>(*agent);
  const EnvSpec& spec = dqn.env_spec();

  torch::manual_seed(123);  // the fixed acting network
  QNetwork fixed(spec.observation_space, spec.action_space, dqn.hyperparams().policy);
  ActorFleetOptions fo;
  fo.actors = actors;
  fo.envs_per_actor = per_actor;
  fo.steps_per_trajectory = dqn.hyperparams().train_freq;
  fo.reset_seed = 11;
  ActorFleet fleet(
      fo, [&](int) { return make_vector_env("CartPole-v1", per_actor); },
      [&](int actor) {
        // Each actor gets its own replica of the same fixed weights (no store: never refreshed).
        torch::manual_seed(999);
        QNetwork replica(spec.observation_space, spec.action_space, dqn.hyperparams().policy);
        load_snapshot(*replica, snapshot_module(*fixed));
        auto eval = std::make_shared<ModuleEvaluator>(
            spec.observation_space, 2, replica.ptr(),
            [replica](const std::vector<torch::Tensor>& obs) mutable { return replica->forward(obs); }, nullptr);
        DqnActingSchedule s;
        s.total_timesteps = 2000;
        s.total_envs = actors * per_actor;
        s.actor = actor;
        s.actors = actors;
        s.seed = 77;
        DqnConfig cfg = dqn.hyperparams();
        cfg.apex_alpha = 0;  // the same epsilon for every actor, so only the split differs
        return std::make_unique<DqnActorPolicy>(eval, spec.action_space, cfg, s);
      });
  fleet.start();
  MonitorOptions mo;
  mo.progress = false;
  mo.log_every = std::numeric_limits<std::int64_t>::max() / 2;
  TrainingMonitor monitor(mo);
  for (int k = 0; k < rounds; ++k) {
    auto round = fleet.next_round();
    EXPECT_TRUE(round);
    dqn.learn_from_round(*round, std::numeric_limits<std::int64_t>::max(), monitor);
  }
  fleet.stop();
  EXPECT_EQ(dqn.num_timesteps(), rounds * 8 * actors * per_actor);
  EXPECT_EQ(dqn.n_updates(), rounds * 4);
  return snapshot_module(*dqn.q_net());
}

TEST_F(DqnRuntime, LearnerParametersDoNotDependOnTheNumberOfActorThreads) {
  const auto one = learner_after_rounds(1, 4, 12);
  const auto two = learner_after_rounds(2, 2, 12);
  const auto four = learner_after_rounds(4, 1, 12);
  ASSERT_EQ(one.tensors.size(), two.tensors.size());
  for (std::size_t i = 0; i < one.tensors.size(); ++i) {
    EXPECT_TRUE(torch::equal(one.tensors[i], two.tensors[i])) << "tensor " << i;
    EXPECT_TRUE(torch::equal(one.tensors[i], four.tensors[i])) << "tensor " << i;
  }
}

TEST_F(DqnRuntime, LearnsWithActorReplicasAndWithTheInferenceServer) {
  for (const std::string max_batch : {"0", "4"}) {
    SCOPED_TRACE("inference.max_batch=" + max_batch);
    auto agent = make_agent("dqn", "CartPole-v1", small(2, 2, {"runtime.inference.max_batch=" + max_batch}));
    agent->set_progress_bar(false);
    agent->learn(1000);
    auto& dqn = dynamic_cast<DqnAgent&>(*agent);
    // Rounds of 8 steps x 4 envs: 1000 steps end inside the 32nd round.
    EXPECT_EQ(agent->num_timesteps(), 1000);
    EXPECT_EQ(dqn.replay_buffer()->n_envs(), 4);
    EXPECT_EQ(dqn.n_updates(), 32 * 4);
    // A second learn() continues with a new fleet.
    agent->learn(200);
    EXPECT_EQ(agent->num_timesteps(), 1200);
  }
}

// Discrete(2) env whose step throws once the process-wide step count reaches a limit.
class ExplodingEnv : public Env {
 public:
  ExplodingEnv() : Env(EnvSpec{"Exploding-v0", Space::box(-1, 1, {2}), Space::discrete(2), 20, std::nullopt}) {}
  static inline std::atomic<int> steps{0};

 protected:
  void do_reset(std::optional<std::uint64_t>, Bytes obs) override { std::fill_n(as_span<float>(obs).data(), 2, 0.0f); }
  StepResult do_step(ConstBytes, Bytes obs) override {
    if (++steps == 300) throw UserError("Exploding-v0: the reactor melted");
    std::fill_n(as_span<float>(obs).data(), 2, 0.5f);
    return {1.0, false, false};
  }
};

TEST_F(DqnRuntime, AnActorErrorStopsTrainingPromptlyNamingTheThread) {
  if (!env_registry().contains("Exploding-v0"))
    register_env("Exploding-v0", {[](const YAML::Node&, const ConfigContext&) { return std::make_unique<ExplodingEnv>(); },
                                  20, std::nullopt, "test"});
  ExplodingEnv::steps = 0;
  auto agent = make_agent("dqn", "Exploding-v0", small(2, 2));
  agent->set_progress_bar(false);
  const auto t0 = std::chrono::steady_clock::now();
  try {
    agent->learn(100'000);
    FAIL() << "no error";
  } catch (const ThreadError& e) {
    EXPECT_THAT(e.thread(), HasSubstr("actor-"));
    EXPECT_THAT(e.what(), HasSubstr("the reactor melted"));
  }
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(10));
  EXPECT_LT(agent->num_timesteps(), 400);
}

// A learner-side failure (here a callback) leaves learn() at once; the actors are stopped and
// joined on the way out, so nothing hangs.
class ThrowingCallback : public Callback {
 public:
  bool on_step(Agent&, std::int64_t steps) override {
    if (steps >= 96) throw std::runtime_error("callback failed");
    return true;
  }
};

TEST_F(DqnRuntime, ALearnerErrorStopsTheActors) {
  auto agent = make_agent("dqn", "CartPole-v1", small(2, 2));
  agent->set_progress_bar(false);
  CallbackList callbacks;
  callbacks.add(std::make_unique<ThrowingCallback>());
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_THROW(agent->learn(100'000, &callbacks), std::runtime_error);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(10));
  EXPECT_EQ(agent->num_timesteps(), 96);
  // The agent is usable afterwards: a new learn() starts a new fleet.
  agent->learn(32);
  EXPECT_EQ(agent->num_timesteps(), 128);
}

TEST_F(DqnRuntime, ActorEpsilonsSpreadApeXStyle) {
  DqnConfig cfg;
  EXPECT_DOUBLE_EQ(dqn_actor_exploration_rate(cfg, 0.4, 0, 4), 0.4);
  EXPECT_DOUBLE_EQ(dqn_actor_exploration_rate(cfg, 0.4, 3, 4), std::pow(0.4, 8.0));
  EXPECT_DOUBLE_EQ(dqn_actor_exploration_rate(cfg, 0.4, 1, 3), std::pow(0.4, 4.5));
  EXPECT_DOUBLE_EQ(dqn_actor_exploration_rate(cfg, 0.4, 0, 1), 0.4);
  cfg.apex_alpha = 0;
  EXPECT_DOUBLE_EQ(dqn_actor_exploration_rate(cfg, 0.4, 3, 4), 0.4);
}

TEST_F(DqnRuntime, RuntimeConfigErrorsNameTheKey) {
  EXPECT_THAT(test::error_of([] { make_agent("dqn", "CartPole-v1", small(2, 2, {"hyperparams.n_envs=3"})); }),
              HasSubstr("hyperparams.n_envs"));
  EXPECT_THAT(test::error_of([] { make_agent("dqn", "CartPole-v1", {"runtime.actors=-1"}); }),
              HasSubstr("runtime.actors"));
  EXPECT_THAT(test::error_of([] { make_agent("dqn", "CartPole-v1", {"runtime.queue_capacity=0"}); }),
              HasSubstr("runtime.queue_capacity"));
  EXPECT_THAT(test::error_of([] { make_agent("dqn", "CartPole-v1", {"runtime.inference.max_bach=4"}); }),
              HasSubstr("did you mean 'max_batch'"));
}

}  // namespace
}  // namespace rlzoo
