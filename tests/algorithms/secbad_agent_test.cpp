// SeCBAD's VAE, online beliefs and agent: the KL and the segment-restricted reconstruction
// against hand computations, oracle resets, the most-likely-length belief against a lone
// encoder run, errors for envs without piecewise contexts, and a save/load round trip.
#include <gtest/gtest.h>

#include "rl/agent.h"
#include "algorithms/builtin.h"
#include "algorithms/secbad/belief_tracker.h"
#include "algorithms/secbad/belief_vae.h"
#include "algorithms/secbad/secbad_agent.h"
#include "core/common/error.h"
#include "envs/builtin.h"
#include "tests/support/test_paths.h"

namespace rlzoo::secbad {
namespace {

TEST(BeliefVae, GaussianKlMatchesTheClosedForm) {
  // KL(N(1, 4) || N(0, 1)) = 0.5 (4 + 1 - 1 - ln 4); two dimensions add.
  const auto mu1 = torch::tensor({1.0, 0.0}), lv1 = torch::tensor({std::log(4.0), 0.0});
  const auto kl = gaussian_kl(mu1, lv1, torch::zeros(2), torch::zeros(2)).item<double>();
  EXPECT_NEAR(kl, 0.5 * (4 + 1 - 1 - std::log(4.0)), 1e-6);
  EXPECT_NEAR(gaussian_kl(mu1, lv1, mu1, lv1).item<double>(), 0.0, 1e-7);
}

// A decoder that always predicts 0 makes the reconstruction term the sum of squared rewards
// over each ELBO index's decoded steps.
TEST(BeliefVae, ReconstructionDecodesOnlyTheSegmentOfEachElboIndex) {
  torch::manual_seed(0);
  VaeConfig cfg;
  cfg.kl_weight = 0;
  BeliefEncoder enc(2, 3, cfg);
  RewardDecoder dec(enc, std::vector<std::int64_t>{8});
  for (auto& p : dec->named_parameters())
    if (p.key().rfind("mlp.2.", 0) == 0) p.value().detach().zero_();  // the output layer
  Episode e;
  e.states = torch::randn({5, 2});
  e.actions = torch::zeros({4, 3});
  e.rewards = torch::tensor({1.0f, 2.0f, 3.0f, 4.0f});
  e.segment_start = torch::tensor({1, 0, 1, 0}).to(torch::kBool);
  Rng rng(1);
  // ELBO indices 0..4 decode steps {1,2},{1,2},{1,2},{3,4},{3,4}: (5 + 5 + 5 + 25 + 25) / 5.
  EXPECT_NEAR(vae_loss(enc, dec, nullptr, {&e}, true, cfg, rng).reward, 13.0, 1e-5);
  EXPECT_NEAR(vae_loss(enc, dec, nullptr, {&e}, false, cfg, rng).reward, 30.0, 1e-5);
}

SecbadConfig small_config(const std::string& belief) {
  SecbadConfig cfg;
  cfg.belief = belief;
  cfg.vae.gru_hidden = 6;
  cfg.vae.latent_dim = 2;
  return cfg;
}

TEST(BeliefTracker, OracleSegmentsRestartFromThePrior) {
  torch::manual_seed(0);
  const auto cfg = small_config("mixture");
  BeliefEncoder enc(2, 3, cfg.vae);
  RewardDecoder dec(enc, std::vector<std::int64_t>{8});
  BeliefTracker t(enc, dec, cfg, SegmentPrior::constant(10), 1, Segmentation::oracle);
  const auto prior = t.beliefs().clone();
  const auto a = torch::tensor({0.0f, 1.0f, 0.0f}), s = torch::tensor({0.5f, -1.0f});
  t.observe(0, a, s, s, 1.0, false);
  EXPECT_FALSE(t.beliefs().equal(prior));
  t.observe(0, a, s, s, 1.0, true);  // the next step starts a new segment
  EXPECT_TRUE(t.beliefs().equal(prior));
}

TEST(BeliefTracker, MapBeliefIsTheEncoderRunOverTheMostLikelySegment) {
  torch::manual_seed(1);
  auto cfg = small_config("map");
  cfg.likelihood_std = 0.3;
  BeliefEncoder enc(2, 3, cfg.vae);
  RewardDecoder dec(enc, std::vector<std::int64_t>{8});
  BeliefTracker t(enc, dec, cfg, SegmentPrior::constant(5), 1, Segmentation::inferred);
  std::vector<torch::Tensor> inputs;
  auto s = torch::zeros({2});
  for (int step = 0; step < 30; ++step) {
    const auto a = torch::one_hot(torch::tensor(step % 3), 3).to(torch::kFloat32);
    const auto next = torch::randn({2});
    const double r = step < 12 ? 1.0 : -1.0;  // the reward's level changes at step 12
    inputs.push_back(enc->input(a.unsqueeze(0), next.unsqueeze(0), torch::tensor({static_cast<float>(r)})));
    t.observe(0, a, s, next, r, false);
    s = next;
    const auto g = t.map_length(0);
    ASSERT_GE(g, 1);
    ASSERT_LE(g, step + 1);
    torch::NoGradGuard no_grad;
    auto h = enc->zero_hidden(1);
    for (auto k = static_cast<std::int64_t>(inputs.size()) - g; k < static_cast<std::int64_t>(inputs.size()); ++k)
      h = enc->step(inputs[static_cast<std::size_t>(k)], h);
    auto [mu, logvar] = enc->latent(h);
    EXPECT_TRUE(torch::allclose(t.beliefs()[0], torch::cat({mu, logvar}, -1)[0], 1e-5, 1e-6)) << "step " << step;
    EXPECT_TRUE(torch::isfinite(t.beliefs()).all().item<bool>());
  }
}

TEST(SecbadAgent, NeedsAnEnvWithPiecewiseContexts) {
  register_builtin_envs();
  register_builtin_algorithms();
  try {
    make_agent("secbad", "CartPole-v1");
    FAIL() << "expected a UserError";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("PiecewiseContext"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(make_agent("varibad", "CartPole-v1"));  // whole-episode beliefs need no segments
  try {
    make_agent("varibad", "CartPole-v1", {"hyperparams.ppo.policy.recurrent.cell=gru"});
    FAIL() << "expected a UserError";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("ppo.policy.recurrent.cell 'gru'"), std::string::npos) << e.what();
  }
}

TEST(SecbadAgent, SavesAndLoadsAndReportsSegmentDiagnostics) {
  register_builtin_envs();
  register_builtin_algorithms();
  const std::vector<std::string> o{"hyperparams.ppo.n_envs=4", "hyperparams.vae.pretrain_frames=0",
                                   "hyperparams.vae.batch_episodes=4"};
  auto agent = make_agent("secbad", "SecbadGrid-v0", o);
  agent->set_progress_bar(false);
  agent->learn(4 * 60 * 3);
  EXPECT_EQ(agent->num_timesteps(), 720);
  const std::string dir = test::make_temp_dir("rlzoo-secbad") + "/agent";
  agent->save(dir);
  auto loaded = load_agent(dir);
  EXPECT_EQ(loaded->algorithm(), "secbad");
  EXPECT_EQ(loaded->num_timesteps(), 720);
  const auto obs = torch::rand({5, 2}) * 4;
  EXPECT_TRUE(agent->act(obs).equal(loaded->act(obs)));
  const auto r1 = agent->evaluate(3), r2 = loaded->evaluate(3);
  EXPECT_EQ(r1.returns, r2.returns);
  ASSERT_EQ(r1.lengths, (std::vector<std::int64_t>{60, 60, 60}));
  const auto& d = dynamic_cast<SecbadAgent&>(*loaded).eval_diagnostics();
  EXPECT_EQ(d.steps, 3 * 59);  // every step but each episode's last is scored
  EXPECT_GE(d.map_within_2, 0.0);
  EXPECT_LE(d.map_within_2, 1.0);
  EXPECT_GT(d.prior_within_2, 0.0);
  EXPECT_GE(d.mean_hypotheses, 1.0);
  loaded->learn(240);  // training goes on from the loaded agent
  EXPECT_EQ(loaded->num_timesteps(), 960);
}

}  // namespace
}  // namespace rlzoo::secbad
