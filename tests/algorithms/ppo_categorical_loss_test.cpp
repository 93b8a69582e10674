// PPO's fused Categorical loss against the LibTorch operations it replaces (ppo_loss with the
// fused path bypassed): loss, statistics and gradients, with clipped values, an entropy bonus,
// action masks and ratios on both sides of the clip range.
#include <gtest/gtest.h>

#include <torch/torch.h>

#include "algorithms/ppo/ppo_categorical_loss.h"
#include "algorithms/ppo/ppo_loss.h"

namespace rlzoo {
namespace {

void check(bool masked, bool clip_values, bool normalize) {
  torch::manual_seed(11);
  constexpr std::int64_t rows = 40, n = 4;
  RolloutBuffer::Batch mb;
  mb.actions = torch::randint(0, n, {rows});
  mb.advantages = torch::randn({rows});
  mb.returns = torch::randn({rows});
  mb.old_values = torch::randn({rows});
  if (masked) {
    mb.action_masks = torch::rand({rows, n}) > 0.3;
    mb.action_masks.index_put_({torch::arange(rows), mb.actions}, true);  // the taken action was legal
  }
  const auto logits = torch::randn({rows, n}).requires_grad_(true);
  const auto values = torch::randn({rows}).requires_grad_(true);
  {
    torch::NoGradGuard no_grad;  // old log-probs near the current ones: ratios inside and outside the clip
    const Categorical old(logits + 0.3 * torch::randn({rows, n}), mb.action_masks);
    mb.old_log_probs = old.log_prob(mb.actions);
  }
  PpoConfig cfg;
  cfg.ent_coef = 0.05;
  cfg.normalize_advantage = normalize;
  if (clip_values) cfg.clip_range_vf = 0.3;
  const Categorical dist(logits, mb.action_masks);
  ASSERT_TRUE(ppo_categorical_loss_applies(dist.logits(), values, mb));

  const PpoLoss fused = ppo_categorical_loss(dist.logits(), values, mb, cfg, 0.1);
  fused.loss.backward();
  const auto d_logits = logits.grad().clone(), d_values = values.grad().clone();
  logits.mutable_grad().zero_();
  values.mutable_grad().zero_();

  // The reference: the same loss through LibTorch's operations (a float64 copy of the inputs
  // keeps the fused path out, and is the more exact of the two).
  auto mb64 = mb;
  mb64.old_log_probs = mb.old_log_probs.to(torch::kFloat64);
  mb64.advantages = mb.advantages.to(torch::kFloat64);
  mb64.returns = mb.returns.to(torch::kFloat64);
  mb64.old_values = mb.old_values.to(torch::kFloat64);
  const auto logits64 = logits.to(torch::kFloat64), values64 = values.to(torch::kFloat64);
  ASSERT_FALSE(ppo_categorical_loss_applies(logits64, values64, mb64));
  const PpoLoss ref = ppo_loss(ActionDistribution(Categorical(logits64, mb.action_masks)), values64, mb64, cfg, 0.1);
  ref.loss.backward();

  EXPECT_NEAR(fused.loss.item<double>(), ref.loss.item<double>(), 1e-5);
  EXPECT_NEAR(fused.pg_loss, ref.pg_loss, 1e-5);
  EXPECT_NEAR(fused.value_loss, ref.value_loss, 1e-5);
  EXPECT_NEAR(fused.entropy_loss, ref.entropy_loss, 1e-5);
  EXPECT_NEAR(fused.approx_kl, ref.approx_kl, 1e-6);
  EXPECT_NEAR(fused.clip_fraction, ref.clip_fraction, 1e-6);  // the reference averages in float
  EXPECT_GT(fused.clip_fraction, 0.0);  // both sides of the clip are exercised
  EXPECT_LT(fused.clip_fraction, 1.0);
  EXPECT_TRUE(torch::allclose(d_logits, logits.grad(), 1e-4, 1e-6))
      << (d_logits - logits.grad()).abs().max().item<double>();
  EXPECT_TRUE(torch::allclose(d_values, values.grad(), 1e-4, 1e-6))
      << (d_values - values.grad()).abs().max().item<double>();
}

TEST(PpoCategoricalLoss, MatchesTheOperations) { check(false, false, true); }
TEST(PpoCategoricalLoss, MatchesWithMasksAndClippedValues) { check(true, true, true); }
TEST(PpoCategoricalLoss, MatchesWithoutAdvantageNormalisation) { check(false, true, false); }

}  // namespace
}  // namespace rlzoo
