// The Decision Transformer and BC: returns-to-go, context windows, %BC selection, the model's
// causal structure and padding, bad settings. What they learn: tests/learning/dt_learning_test.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "rl/agent.h"
#include "datasets/dataset_writer.h"
#include "algorithms/builtin.h"
#include "algorithms/dt/decision_transformer.h"
#include "algorithms/dt/dt_agent.h"
#include "algorithms/dt/offline_data.h"
#include "core/common/error.h"
#include "core/registry/env_registry.h"
#include "envs/builtin.h"
#include "tests/support/cartpole_dataset.h"
#include "tests/support/test_paths.h"

namespace rlzoo::dt {
namespace {

OfflineEpisode episode(std::int64_t T, float reward, float state_base) {
  OfflineEpisode e;
  e.states = torch::arange(T, torch::kFloat32).unsqueeze(1) + state_base;  // S = 1: the step index + base
  e.actions = torch::full({T, 1}, 0.5f);
  e.rewards = torch::full({T}, reward);
  return e;
}

TEST(Dt, ReturnsToGoRunToTheEpisodeEnd) {
  const auto rtg = returns_to_go(torch::tensor({1.0, 2.0, 3.0, -1.0}));
  EXPECT_TRUE(torch::equal(rtg, torch::tensor({5.0f, 4.0f, 2.0f, -1.0f})));
}

TEST(Dt, SequenceWindowsAreLeftPaddedWithAbsoluteTimestepsAndFullReturnsToGo) {
  // One episode of 5 steps with reward 1: every window starts at a drawn step t and holds
  // min(K, 5 - t) real steps right-aligned.
  OfflineData data({episode(5, 1.0f, 0.0f)}, /*discrete=*/false);
  Rng rng(3);
  const std::int64_t K = 3;
  const auto w = data.windows(200, K, /*rtg_scale=*/10.0, /*max_ep_len=*/100, rng);
  ASSERT_EQ(w.states.sizes(), (std::vector<std::int64_t>{200, K, 1}));
  std::set<std::int64_t> starts;
  for (std::int64_t b = 0; b < 200; ++b) {
    const auto n = w.valid[b].sum().item<std::int64_t>();
    const auto t0 = w.timesteps[b][K - n].item<std::int64_t>();
    starts.insert(t0);
    EXPECT_EQ(n, std::min<std::int64_t>(K, 5 - t0));
    for (std::int64_t k = 0; k < K; ++k) {
      if (k < K - n) {  // padding: zeros everywhere
        EXPECT_FALSE(w.valid[b][k].item<bool>());
        EXPECT_EQ(w.rtg[b][k].item<float>(), 0.0f);
        EXPECT_EQ(w.actions[b][k][0].item<float>(), 0.0f);
        EXPECT_EQ(w.states[b][k][0].item<float>(), 0.0f);
        continue;
      }
      const auto t = t0 + (k - (K - n));
      EXPECT_EQ(w.timesteps[b][k].item<std::int64_t>(), t);
      EXPECT_FLOAT_EQ(w.rtg[b][k].item<float>(), static_cast<float>(5 - t) / 10.0f);  // to the episode's end
      // States are normalised by the dataset's statistics (mean 2, std sqrt(2)).
      EXPECT_NEAR(w.states[b][k][0].item<float>(), (static_cast<double>(t) - 2.0) / (std::sqrt(2.0) + 1e-6), 1e-5);
    }
  }
  EXPECT_EQ(starts.size(), 5u) << "every step should start some window";
}

TEST(Dt, HistoryWindowsEndAtTheDrawnStep) {
  OfflineData data({episode(4, 1.0f, 0.0f)}, false);
  Rng rng(5);
  const auto w = data.windows(100, 3, 1.0, 100, rng, WindowKind::history);
  for (std::int64_t b = 0; b < 100; ++b) {
    ASSERT_TRUE(w.valid[b][2].item<bool>());
    const auto t = w.timesteps[b][2].item<std::int64_t>();
    EXPECT_EQ(w.valid[b].sum().item<std::int64_t>(), std::min<std::int64_t>(3, t + 1));
  }
}

TEST(Dt, KeepTopSelectsTheBestEpisodesByReturn) {
  // Returns 10 (10 steps), 40 (20 steps), 5 (50 steps), 60 (20 steps).
  OfflineData data({episode(10, 1, 0), episode(20, 2, 0), episode(50, 0.1f, 0), episode(20, 3, 0)}, false);
  data.keep_top(0.2);  // 20 of 100 steps: the best episode (return 60) holds them
  EXPECT_EQ(data.kept_episodes(), 1);
  EXPECT_EQ(data.kept_steps(), 20);
  Rng rng(1);
  const auto w = data.windows(50, 1, 1.0, 100, rng);
  EXPECT_TRUE(torch::all(w.rtg <= 60.0f + 1e-4).item<bool>());
  EXPECT_TRUE(torch::all(w.rtg >= 3.0f - 1e-4).item<bool>()) << "windows from the return-60 episode only";
  data.keep_top(0.3);  // 20 steps are not 30: the next best (return 40) joins
  EXPECT_EQ(data.kept_episodes(), 2);
  data.keep_top(1.0);
  EXPECT_EQ(data.kept_steps(), 100);
  EXPECT_DOUBLE_EQ(data.best_return(), 60.0);
  EXPECT_THROW(data.keep_top(0.0), UserError);
}

SequenceModelOptions tiny_options(bool discrete) {
  SequenceModelOptions o;
  o.state_dim = 3;
  o.action_dim = discrete ? 4 : 2;
  o.discrete = discrete;
  o.max_ep_len = 50;
  o.transformer = TransformerOptions{.width = 16, .layers = 2, .heads = 2, .dropout = 0.1};
  return o;
}

struct Inputs {
  torch::Tensor s, a, r, t, v;
};

Inputs random_inputs(bool discrete, std::int64_t B, std::int64_t K) {
  Inputs in;
  in.s = torch::randn({B, K, 3});
  in.a = discrete ? torch::randint(0, 4, {B, K}, torch::kInt64) : torch::rand({B, K, 2}) * 2 - 1;
  in.r = torch::randn({B, K});
  in.t = torch::arange(K, torch::kInt64).expand({B, K}).contiguous();
  in.v = torch::ones({B, K}, torch::kBool);
  return in;
}

TEST(Dt, ActionOfStepTDependsOnNoActionFromTOn) {
  for (bool discrete : {false, true}) {
    torch::manual_seed(0);
    DecisionTransformer model(tiny_options(discrete));
    model->eval();
    torch::NoGradGuard no_grad;
    auto in = random_inputs(discrete, 2, 6);
    const auto y = model->forward(in.s, in.a, in.r, in.t, in.v);
    auto a2 = in.a.clone();
    a2.slice(1, 3) = discrete ? torch::randint(0, 4, {2, 3}, torch::kInt64) : torch::rand({2, 3, 2}) * 2 - 1;
    auto s2 = in.s.clone();
    s2.slice(1, 4) = torch::randn({2, 2, 3});
    const auto y2 = model->forward(in.s, a2, in.r, in.t, in.v);
    const auto y3 = model->forward(s2, in.a, in.r, in.t, in.v);
    EXPECT_TRUE(torch::allclose(y.slice(1, 0, 4), y2.slice(1, 0, 4), 0, 1e-6)) << "a_3.. leaked into step <= 3";
    EXPECT_GT((y.slice(1, 4) - y2.slice(1, 4)).abs().max().item<double>(), 1e-5) << "a_3 must inform step 4";
    EXPECT_TRUE(torch::allclose(y.slice(1, 0, 4), y3.slice(1, 0, 4), 0, 1e-6)) << "s_4.. leaked into step <= 3";
    if (!discrete) {
      EXPECT_TRUE(torch::all(y.abs() <= 1).item<bool>()) << "continuous actions are tanh-bounded";
    }
  }
}

TEST(Dt, LeftPaddingMatchesTheShortWindow) {
  torch::manual_seed(1);
  DecisionTransformer model(tiny_options(false));
  model->eval();
  torch::NoGradGuard no_grad;
  auto in = random_inputs(false, 1, 5);
  auto valid = in.v.clone();
  valid.slice(1, 0, 2) = false;
  auto junk = in.s.clone();
  junk.slice(1, 0, 2) = 100.0;  // anything in the padded steps
  const auto padded = model->forward(junk, in.a, in.r, in.t, valid);
  const auto short_window = model->forward(in.s.slice(1, 2), in.a.slice(1, 2), in.r.slice(1, 2), in.t.slice(1, 2),
                                           in.v.slice(1, 2));
  EXPECT_TRUE(torch::allclose(padded.slice(1, 2), short_window, 1e-5, 1e-5));
}

TEST(Dt, ActionLossCountsValidStepsOnly) {
  const auto pred = torch::tensor({{{0.0f}, {1.0f}}});
  const auto target = torch::tensor({{{5.0f}, {0.0f}}});
  const auto valid = torch::tensor({{false, true}});
  EXPECT_FLOAT_EQ(action_loss(pred, target, valid, false).item<float>(), 1.0f);
  const auto logits = torch::tensor({{{0.0f, 0.0f}, {100.0f, 0.0f}}});
  const auto labels = torch::tensor({{1, 0}}, torch::kInt64);
  EXPECT_NEAR(action_loss(logits, labels, valid, true).item<float>(), 0.0f, 1e-5);
}

TEST(Dt, BadSettingsAreClearErrors) {
  register_builtin_envs();
  register_builtin_algorithms();
  const auto dir = test::write_cartpole_dataset();
  // No dataset key.
  EXPECT_THROW(make_agent("dt", "CartPole-v1"), UserError);
  // A dataset that is not there, or does not fit the env, fails at once, naming it.
  const std::string missing = test::error_of([] { make_agent("dt", "CartPole-v1", {"hyperparams.dataset=/nonexistent/data"}); });
  EXPECT_NE(missing.find("/nonexistent/data"), std::string::npos) << missing;
  // CartPole's data do not fit MountainCar's observations (2 values, not 4).
  const std::string other = test::error_of([&] { make_agent("dt", "MountainCar-v0", {"hyperparams.dataset=" + dir}); });
  EXPECT_NE(other.find("do not fit"), std::string::npos) << other;
  // A saved agent loads and acts without its dataset.
  auto agent = make_agent("bc", "CartPole-v1", {"hyperparams.dataset=" + dir, "hyperparams.context=1"});
  const auto saved = test::make_temp_dir("dt_no_data") + "/agent";
  agent->save(saved);
  std::filesystem::rename(dir, dir + ".moved");
  EXPECT_EQ(load_agent(saved)->evaluate(1).returns.size(), 1u);
  std::filesystem::rename(dir + ".moved", dir);
  EXPECT_THROW(make_agent("dt", "CartPole-v1", {"hyperparams.dataset=" + dir, "hyperparams.width=30",
                                               "hyperparams.heads=4"}),
               UserError);
  EXPECT_THROW(make_agent("dt", "CartPole-v1", {"hyperparams.dataset=" + dir, "hyperparams.pct_traj=0"}), UserError);
  if (!torch::cuda::is_available()) {
    EXPECT_THROW(make_agent("dt", "CartPole-v1", {"hyperparams.dataset=" + dir, "device=cuda"}), UserError);
  }
  // Agents saved before the top-level device key carry hyperparams.device; they still load.
  EXPECT_NO_THROW(make_agent("dt", "CartPole-v1", {"hyperparams.dataset=" + dir, "hyperparams.device=cpu"}));
  EXPECT_NO_THROW(make_agent("dt", "CartPole-v1", {"hyperparams.dataset=" + dir, "hyperparams.device=cuda"}));
}

}  // namespace
}  // namespace rlzoo::dt
