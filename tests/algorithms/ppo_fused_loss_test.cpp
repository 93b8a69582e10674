// PPO's fused losses against the LibTorch operations they replace (ppo_loss on float64 copies,
// which keep the fused path out): loss, statistics and gradients, for a Categorical policy (with
// and without action masks) and a diagonal Gaussian one (the log-std as the expanded parameter),
// with clipped values, an entropy bonus and ratios on both sides of the clip range.
#include <gtest/gtest.h>

#include <torch/torch.h>

#include "algorithms/ppo/ppo_fused_loss.h"
#include "algorithms/ppo/ppo_loss.h"

namespace rlzoo {
namespace {

constexpr std::int64_t kRows = 40;

struct Case {
  RolloutBuffer::Batch mb;
  PpoConfig cfg;
};

Case make_case(bool clip_values, bool normalize) {
  Case c;
  c.mb.advantages = torch::randn({kRows});
  c.mb.returns = torch::randn({kRows});
  c.mb.old_values = torch::randn({kRows});
  c.cfg.ent_coef = 0.05;
  c.cfg.normalize_advantage = normalize;
  if (clip_values) c.cfg.clip_range_vf = 0.3;
  return c;
}

RolloutBuffer::Batch as_float64(const RolloutBuffer::Batch& mb) {
  auto b = mb;
  for (auto* t : {&b.old_log_probs, &b.advantages, &b.returns, &b.old_values}) *t = t->to(torch::kFloat64);
  if (b.actions.is_floating_point()) b.actions = b.actions.to(torch::kFloat64);
  return b;
}

void expect_same(const PpoLoss& fused, const PpoLoss& ref) {
  EXPECT_NEAR(fused.loss.item<double>(), ref.loss.item<double>(), 1e-5);
  EXPECT_NEAR(fused.pg_loss, ref.pg_loss, 1e-5);
  EXPECT_NEAR(fused.value_loss, ref.value_loss, 1e-5);
  EXPECT_NEAR(fused.entropy_loss, ref.entropy_loss, 1e-5);
  EXPECT_NEAR(fused.approx_kl, ref.approx_kl, 1e-6);
  EXPECT_NEAR(fused.clip_fraction, ref.clip_fraction, 1e-6);  // the reference averages in float
  EXPECT_GT(fused.clip_fraction, 0.0);  // both sides of the clip are exercised
  EXPECT_LT(fused.clip_fraction, 1.0);
}

void expect_close(const torch::Tensor& a, const torch::Tensor& b, const char* what) {
  EXPECT_TRUE(torch::allclose(a, b, 1e-4, 1e-6)) << what << ": " << (a - b).abs().max().item<double>();
}

// The fused loss's gradients (`fused_grads`, taken before) against ppo_loss's on float64 copies
// of the inputs (`dist64` built on them): the same loss, statistics and gradients of `inputs`.
void expect_matches_operations(const PpoLoss& fused, const std::vector<torch::Tensor>& fused_grads,
                               const ActionDistribution& dist64, const torch::Tensor& values,
                               const RolloutBuffer::Batch& mb, const PpoConfig& cfg,
                               const std::vector<torch::Tensor>& inputs) {
  for (const auto& t : inputs) const_cast<torch::Tensor&>(t).mutable_grad().zero_();
  const auto mb64 = as_float64(mb);
  const auto values64 = values.to(torch::kFloat64);
  ASSERT_FALSE(ppo_fused_loss_applies(dist64, values64, mb64));
  const PpoLoss ref = ppo_loss(dist64, values64, mb64, cfg, 0.1);
  ref.loss.backward();
  expect_same(fused, ref);
  for (std::size_t i = 0; i < inputs.size(); ++i)
    expect_close(fused_grads[i], inputs[i].grad(), ("gradient of input " + std::to_string(i)).c_str());
}

void check_categorical(bool masked, bool clip_values, bool normalize) {
  torch::manual_seed(11);
  constexpr std::int64_t n = 4;
  Case c = make_case(clip_values, normalize);
  auto& mb = c.mb;
  mb.actions = torch::randint(0, n, {kRows});
  if (masked) {
    mb.action_masks = torch::rand({kRows, n}) > 0.3;
    mb.action_masks.index_put_({torch::arange(kRows), mb.actions}, true);  // the taken action was legal
  }
  const auto logits = torch::randn({kRows, n}).requires_grad_(true);
  const auto values = torch::randn({kRows}).requires_grad_(true);
  {
    torch::NoGradGuard no_grad;  // old log-probs near the current ones: ratios inside and outside the clip
    mb.old_log_probs = Categorical(logits + 0.3 * torch::randn({kRows, n}), mb.action_masks).log_prob(mb.actions);
  }
  const ActionDistribution dist(Categorical(logits, mb.action_masks));
  ASSERT_TRUE(ppo_fused_loss_applies(dist, values, mb));
  const PpoLoss fused = ppo_fused_loss(dist, values, mb, c.cfg, 0.1);
  fused.loss.backward();
  expect_matches_operations(fused, {logits.grad().clone(), values.grad().clone()},
                            ActionDistribution(Categorical(logits.to(torch::kFloat64), mb.action_masks)), values, mb,
                            c.cfg, {logits, values});
}

TEST(PpoFusedLoss, CategoricalMatchesTheOperations) { check_categorical(false, false, true); }
TEST(PpoFusedLoss, CategoricalMatchesWithMasksAndClippedValues) { check_categorical(true, true, true); }
TEST(PpoFusedLoss, CategoricalMatchesWithoutAdvantageNormalisation) { check_categorical(false, true, false); }

TEST(PpoFusedLoss, GaussianMatchesTheOperations) {
  torch::manual_seed(12);
  constexpr std::int64_t d = 3;
  Case c = make_case(true, true);
  auto& mb = c.mb;
  const auto mean = torch::randn({kRows, d}).requires_grad_(true);
  const auto log_std = (0.3 * torch::randn({d})).requires_grad_(true);  // the parameter, expanded per row
  const auto values = torch::randn({kRows}).requires_grad_(true);
  {
    torch::NoGradGuard no_grad;
    const DiagGaussian old(mean + 0.2 * torch::randn({kRows, d}), log_std + 0.1);
    mb.actions = old.sample().contiguous();
    mb.old_log_probs = old.log_prob(mb.actions);
  }
  const ActionDistribution dist(DiagGaussian(mean, log_std));
  ASSERT_TRUE(ppo_fused_loss_applies(dist, values, mb));
  const PpoLoss fused = ppo_fused_loss(dist, values, mb, c.cfg, 0.1);
  fused.loss.backward();
  expect_matches_operations(fused, {mean.grad().clone(), log_std.grad().clone(), values.grad().clone()},
                            ActionDistribution(DiagGaussian(mean.to(torch::kFloat64), log_std.to(torch::kFloat64))),
                            values, mb, c.cfg, {mean, log_std, values});
}

}  // namespace
}  // namespace rlzoo
