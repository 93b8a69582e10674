// DQN's targets and TD loss in plain loops against the LibTorch operations they replace.
#include <gtest/gtest.h>

#include <torch/torch.h>

#include <limits>

#include "algorithms/dqn/dqn_loss.h"

namespace rlzoo {
namespace {

TEST(DqnLoss, TargetsMatchTheOperations) {
  torch::manual_seed(2);
  const auto next_q = torch::randn({33, 3}), online = torch::randn({33, 3});
  const auto rewards = torch::randn({33}), discounts = torch::full({33}, 0.99f);
  const auto terminated = (torch::rand({33}) > 0.7).to(torch::kFloat32);
  const auto plain = dqn_targets(next_q, {}, rewards, discounts, terminated);
  const auto ops = rewards + discounts * (1.0f - terminated) * std::get<0>(next_q.max(1));
  EXPECT_TRUE(torch::equal(plain, ops));  // the same float operations in the same order
  const auto double_q = dqn_targets(next_q, online, rewards, discounts, terminated);
  const auto double_ops =
      rewards + discounts * (1.0f - terminated) * next_q.gather(1, online.argmax(1, true)).squeeze(1);
  EXPECT_TRUE(torch::equal(double_q, double_ops));
  // A NaN in the Q table reaches the target (the gradient guard then stops the update).
  auto bad = next_q.clone();
  bad[4][2] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(std::isnan(dqn_targets(bad, {}, rewards, discounts, terminated)[4].item<float>()));
}

void check_loss(bool huber) {
  torch::manual_seed(4);
  const auto q_all = (torch::randn({40, 3}) * 2).requires_grad_(true);
  const auto actions = torch::randint(0, 3, {40});
  const auto targets = torch::randn({40});
  const DqnLoss fused = dqn_td_loss(q_all, actions, targets, huber);
  fused.loss.backward();
  const auto grad = q_all.grad().clone();
  q_all.mutable_grad().zero_();
  const auto q = q_all.gather(1, actions.unsqueeze(1)).squeeze(1);
  const auto ref = huber ? torch::smooth_l1_loss(q, targets) : torch::mse_loss(q, targets);
  ref.backward();
  EXPECT_NEAR(fused.value, ref.item<double>(), 1e-5);
  EXPECT_NEAR(fused.loss.item<double>(), ref.item<double>(), 1e-5);
  EXPECT_NEAR(fused.q_mean, q.mean().item<double>(), 1e-6);
  EXPECT_TRUE(torch::allclose(grad, q_all.grad(), 1e-5, 1e-7)) << (grad - q_all.grad()).abs().max().item<double>();
}

TEST(DqnLoss, HuberMatchesSmoothL1) { check_loss(true); }
TEST(DqnLoss, SquaredErrorMatchesMse) { check_loss(false); }

}  // namespace
}  // namespace rlzoo
