// Training that diverges stops with an error naming the step, before the bad update reaches the
// parameters, and the checkpoints saved before it stay loadable (docs/reliability.md, F3). The
// trigger is an env whose rewards overflow float32 after a number of steps: the losses become
// Inf, their gradients NaN/Inf. Also the pieces: the gradient guard and the refusal to save a
// module whose parameters are not finite.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <limits>

#include <torch/torch.h>

#include "rl/agent.h"
#include "rl/algorithm_registry.h"
#include "rl/callbacks.h"
#include "rl/gradient_guard.h"
#include "algorithms/builtin.h"
#include "algorithms/dqn/dqn.h"
#include "core/checkpoint/manager.h"
#include "core/registry/env_registry.h"
#include "core/torch/tensor_io.h"
#include "envs/builtin.h"
#include "tests/support/test_paths.h"

namespace rlzoo {
namespace {

namespace fs = std::filesystem;
using ::testing::AllOf;
using ::testing::HasSubstr;

// Discrete(2), 2 float observations that depend on the action; reward 1 until the process-wide
// step count reaches `overflow_at`, then 1e300 (finite as a double, Inf once a learner stores it
// as float32). Episodes are cut at 20 steps.
class OverflowEnv : public Env {
 public:
  OverflowEnv() : Env(EnvSpec{"Overflow-v0", Space::box(-1, 1, {2}), Space::discrete(2), 20, std::nullopt}) {}
  static inline std::atomic<std::int64_t> steps{0};
  static inline std::int64_t overflow_at = 0;

 protected:
  void do_reset(std::optional<std::uint64_t>, Bytes obs) override { std::fill_n(as_span<float>(obs).data(), 2, 0.0f); }
  StepResult do_step(ConstBytes action, Bytes obs) override {
    const float a = static_cast<float>(as_span<std::int64_t>(action)[0]);
    as_span<float>(obs)[0] = a - 0.5f;
    as_span<float>(obs)[1] = 0.25f;
    return {++steps >= overflow_at ? 1e300 : 1.0, false, false};
  }
};

class Divergence : public ::testing::Test {
 protected:
  void SetUp() override {
    register_builtin_envs();
    register_builtin_algorithms();
    if (!env_registry().contains("Overflow-v0"))
      register_env("Overflow-v0", {[](const YAML::Node&, const ConfigContext&) { return std::make_unique<OverflowEnv>(); },
                                   20, std::nullopt, "test"});
  }
};

struct DivergedRun {
  std::unique_ptr<Agent> agent;
  fs::path root;        // its checkpoints, every 256 steps
  std::string message;  // of the TrainingDiverged that ended it
};

// An `algo` agent on Overflow-v0 whose rewards overflow from env step `overflow_at`, trained
// until the error.
DivergedRun train_until_diverged(const std::string& algo, int overflow_at, const std::vector<std::string>& overrides) {
  OverflowEnv::steps = 0;
  OverflowEnv::overflow_at = overflow_at;
  DivergedRun run;
  run.root = fs::path(test::make_temp_dir("rlzoo-diverge-" + algo)) / "checkpoints";
  run.agent = make_agent(algo, "Overflow-v0", overrides);
  run.agent->set_progress_bar(false);
  CallbackList callbacks;
  callbacks.add(std::make_unique<CheckpointCallback>(run.root.string(), 256, 3));
  run.message = "<no TrainingDiverged>";
  try {
    run.agent->learn(100'000, &callbacks);
  } catch (const TrainingDiverged& e) {
    run.message = e.what();
  }
  return run;
}

// The latest checkpoint loads and acts, and every parameter in it is finite.
void expect_good_latest_checkpoint(const fs::path& root, std::int64_t before_step) {
  const LatestCheckpoint latest = CheckpointManager(root).latest();
  ASSERT_TRUE(latest.reader.has_value()) << "no checkpoint was kept";
  EXPECT_TRUE(latest.warnings.empty());
  EXPECT_LE(latest.step, before_step);
  auto loaded = load_agent(latest.reader->dir().string());
  const auto eval = loaded->evaluate(2);
  EXPECT_EQ(eval.returns.size(), 2u);
  auto policy = loaded->export_policy();
  ASSERT_TRUE(policy.has_value());
  for (const auto& [name, t] : policy->tensors) EXPECT_TRUE(torch::isfinite(t).all().item<bool>()) << name;
}

TEST_F(Divergence, DqnStopsNamingTheStepAndKeepsTheLastGoodCheckpoint) {
  const auto [agent, root, message] = train_until_diverged(
      "dqn", 1000,
      {"seed=3", "n_timesteps=100000", "hyperparams.learning_starts=100", "hyperparams.train_freq=4",
       "hyperparams.batch_size=16", "hyperparams.buffer_size=5000", "hyperparams.policy.hidden=[16]", "runtime.actors=0"});
  EXPECT_THAT(message, AllOf(HasSubstr("training diverged at step"), HasSubstr("DQN gradient step"),
                             HasSubstr("the loss is inf"), HasSubstr("checkpoints saved so far are intact")));
  // It stopped within a few updates of the first overflowing reward entering a batch.
  EXPECT_GE(agent->num_timesteps(), 1000);
  EXPECT_LT(agent->num_timesteps(), 2000);
  expect_good_latest_checkpoint(root, agent->num_timesteps());
  fs::remove_all(root.parent_path());
}

// A parameter that turns NaN by other means than an update (here a callback writes it) is
// caught at the next checkpoint: that save fails naming the step and the parameter, and the
// checkpoint before it stays the latest.
class PoisonAt : public Callback {
 public:
  explicit PoisonAt(std::int64_t step) : step_(step) {}
  bool on_step(Agent& agent, std::int64_t num_timesteps) override {
    if (num_timesteps >= step_ && !done_) done_ = true,
      dynamic_cast<DqnAgent&>(agent).q_net()->parameters()[0].data()[0][0] = std::numeric_limits<float>::quiet_NaN();
    return true;
  }

 private:
  std::int64_t step_;
  bool done_ = false;
};

TEST_F(Divergence, ANonFiniteParameterIsNeverCheckpointedAndTheStepIsNamed) {
  const fs::path root = fs::path(test::make_temp_dir("rlzoo-diverge-param")) / "checkpoints";
  auto agent = make_agent("dqn", "CartPole-v1",
                          {"seed=3", "hyperparams.learning_starts=100000", "hyperparams.policy.hidden=[16]",
                           "runtime.actors=0"});
  agent->set_progress_bar(false);
  CallbackList callbacks;
  callbacks.add(std::make_unique<PoisonAt>(600));
  callbacks.add(std::make_unique<CheckpointCallback>(root.string(), 256, 3));
  const std::string message = test::error_of([&] { agent->learn(5000, &callbacks); });
  EXPECT_THAT(message, AllOf(HasSubstr("checkpoint at step 768 not saved"), HasSubstr("QNetwork"),
                             HasSubstr("holds NaN or Inf"), HasSubstr("checkpoints saved before it")))
      << message;
  const LatestCheckpoint latest = CheckpointManager(root).latest();
  ASSERT_TRUE(latest.reader.has_value());
  EXPECT_EQ(latest.step, 512);
  fs::remove_all(root.parent_path());
}

TEST_F(Divergence, PpoStopsNamingTheStepAndKeepsTheLastGoodCheckpoint) {
  const auto [agent, root, message] = train_until_diverged(
      "ppo", 1200,
      {"seed=3", "n_timesteps=100000", "hyperparams.n_envs=2", "hyperparams.n_steps=128", "hyperparams.batch_size=64",
       "hyperparams.n_epochs=2", "hyperparams.policy.hidden=[16]"});
  EXPECT_THAT(message, AllOf(HasSubstr("training diverged at step"), HasSubstr("PPO gradient step")));
  // The rollout that holds the overflow (steps 1024..1280) is the one that stops it.
  EXPECT_EQ(agent->num_timesteps(), 1280);
  expect_good_latest_checkpoint(root, 1280);
  fs::remove_all(root.parent_path());
}

TEST(GradientGuard, AHealthyUpdateIsClippedAsLibTorchDoes) {
  torch::manual_seed(0);
  torch::nn::Linear a(3, 2), b(3, 2);
  b->weight.data().copy_(a->weight.data());
  b->bias.data().copy_(a->bias.data());
  const auto x = torch::randn({5, 3});
  torch::Tensor loss_a = a(x).pow(2).sum(), loss_b = b(x).pow(2).sum();
  loss_a.backward();
  loss_b.backward();
  const double ours = clip_and_check_gradients(a->parameters(), 0.1, loss_a, {"test step", 1, 10});
  const double theirs = torch::nn::utils::clip_grad_norm_(b->parameters(), 0.1);
  // Ours sums the squares in double in one pass (plain float CPU gradients), LibTorch per
  // tensor in float: the same to float rounding.
  EXPECT_NEAR(ours, theirs, 1e-6 * theirs);
  EXPECT_TRUE(torch::allclose(a->weight.grad(), b->weight.grad(), 1e-6, 1e-8));
  // Without clipping the norm is computed and nothing is scaled.
  const auto before = a->weight.grad().clone();
  EXPECT_NEAR(clip_and_check_gradients(a->parameters(), 0.0, loss_a, {"test step", 2, 10}), 0.1, 1e-5);
  EXPECT_TRUE(torch::equal(a->weight.grad(), before));
}

TEST(GradientGuard, ANonFiniteGradientStopsBeforeTheStepNamingIt) {
  torch::nn::Linear net(3, 2);
  const auto x = torch::randn({4, 3});
  const torch::Tensor loss = net(x).sum() * std::numeric_limits<float>::infinity();
  loss.backward();
  const std::string message =
      test::error_of([&] { clip_and_check_gradients(net->parameters(), 0.5, loss, {"DQN gradient step", 7, 4242}); });
  EXPECT_THAT(message, AllOf(HasSubstr("training diverged at step 4242 (DQN gradient step 7)"), HasSubstr("loss is"),
                             HasSubstr("gradient norm is")));
  torch::Tensor g = torch::ones({6});
  EXPECT_EQ(test::error_of([&] { check_finite_gradient(g, {"policy-gradient iteration", 1, 1}); }), "");
  g[2] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_THAT(test::error_of([&] { check_finite_gradient(g, {"policy-gradient iteration", 3, 900}); }),
              AllOf(HasSubstr("step 900 (policy-gradient iteration 3)"), HasSubstr("1 of the 6 gradient entries")));
}

TEST(GradientGuard, AModuleWithANonFiniteParameterIsNotSaved) {
  torch::nn::Sequential net(torch::nn::Linear(2, 2), torch::nn::Linear(2, 1));
  EXPECT_FALSE(save_module(*net).empty());
  net[1]->as<torch::nn::Linear>()->bias.data()[0] = std::numeric_limits<float>::infinity();
  EXPECT_THAT(test::error_of([&] { save_module(*net); }), AllOf(HasSubstr("'1.bias'"), HasSubstr("NaN or Inf")));
}

}  // namespace
}  // namespace rlzoo
