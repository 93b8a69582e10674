// PPO's plain-pass minibatch step (algorithms/ppo/ppo_fused_update.h) against its autograd step
// through the same fused chains and loss node: one step on a hand-made minibatch (with and
// without action masks and clipped values: the same loss, statistics and gradients bit for
// bit), and two agents from one seed, one on each path, whose policies must stay equal bit for
// bit over several updates.
#include <gtest/gtest.h>

#include <torch/torch.h>

#include <string>
#include <vector>

#include "algorithms/ppo/ppo.h"
#include "algorithms/ppo/ppo_fused_update.h"
#include "algorithms/ppo/ppo_loss.h"
#include "rl/agent.h"
#include "tests/support/builtin_registries.h"

namespace rlzoo {
namespace {

constexpr std::int64_t kStepRows = 48, kActions = 3;

std::vector<torch::Tensor> take_gradients(ActorCritic& policy) {
  std::vector<torch::Tensor> g;
  for (auto& p : policy->parameters()) {
    g.push_back(p.grad().defined() ? p.grad().clone() : torch::zeros_like(p));
    p.mutable_grad() = torch::Tensor();
  }
  return g;
}

void check_one_step(bool masks, bool clip_values) {
  torch::manual_seed(7);
  PolicyConfig pc;
  pc.hidden = {16, 16};
  ActorCritic policy(Space::box(-10, 10, {5}), Space::discrete(kActions), pc);
  PpoConfig cfg;
  cfg.ent_coef = 0.05;
  if (clip_values) cfg.clip_range_vf = 0.3;
  RolloutBuffer::Batch mb;
  mb.obs = {torch::randn({kStepRows, 5})};
  mb.actions = torch::randint(0, kActions, {kStepRows});
  mb.advantages = torch::randn({kStepRows});
  mb.returns = torch::randn({kStepRows});
  mb.old_values = torch::randn({kStepRows});
  if (masks) {
    mb.action_masks = torch::rand({kStepRows, kActions}) < 0.7;
    mb.action_masks.index_put_({torch::arange(kStepRows), mb.actions}, true);  // the taken action is legal
  }
  {
    torch::NoGradGuard no_grad;
    mb.old_log_probs = (policy->forward(mb.obs, mb.action_masks).first.log_prob(mb.actions) +
                        0.3 * torch::randn({kStepRows}))  // ratios on both sides of the clip
                           .contiguous();
  }
  PpoFusedUpdate plain(policy);
  ASSERT_TRUE(plain.applies(mb));
  const PpoLoss a = plain.forward(mb, cfg, 0.2);
  plain.backward(cfg);
  const auto plain_grads = take_gradients(policy);

  auto [dist, values] = policy->forward(mb.obs, mb.action_masks);
  const PpoLoss b = ppo_loss(dist, values, mb, cfg, 0.2);
  b.loss.backward();
  const auto autograd_grads = take_gradients(policy);

  EXPECT_EQ(a.loss.item<float>(), b.loss.item<float>());
  EXPECT_EQ(a.pg_loss, b.pg_loss);
  EXPECT_EQ(a.value_loss, b.value_loss);
  EXPECT_EQ(a.entropy_loss, b.entropy_loss);
  EXPECT_EQ(a.approx_kl, b.approx_kl);
  EXPECT_EQ(a.clip_fraction, b.clip_fraction);
  EXPECT_GT(a.clip_fraction, 0.0);
  ASSERT_EQ(plain_grads.size(), autograd_grads.size());
  for (std::size_t i = 0; i < plain_grads.size(); ++i) {
    EXPECT_TRUE(torch::equal(plain_grads[i], autograd_grads[i])) << "parameter " << i;
    EXPECT_GT(plain_grads[i].abs().max().item<double>(), 0.0) << "parameter " << i;
  }
}

TEST(PpoFusedUpdate, OneStepEqualsTheAutogradStep) { check_one_step(false, false); }
TEST(PpoFusedUpdate, OneStepEqualsItWithMasksAndClippedValues) { check_one_step(true, true); }

TEST(PpoFusedUpdate, StandsAsideWhereItDoesNotApply) {
  torch::manual_seed(0);
  RolloutBuffer::Batch mb;
  mb.obs = {torch::randn({4, 3})};
  mb.actions = torch::zeros({4}, torch::kInt64);
  mb.advantages = mb.returns = mb.old_values = mb.old_log_probs = torch::zeros({4});
  ActorCritic categorical(Space::box(-1, 1, {3}), Space::discrete(2), PolicyConfig{});
  EXPECT_TRUE(PpoFusedUpdate(categorical).applies(mb));
  ActorCritic gaussian(Space::box(-1, 1, {3}), Space::box(-1, 1, {2}), PolicyConfig{});
  EXPECT_FALSE(PpoFusedUpdate(gaussian).applies(mb));  // a Gaussian takes the autograd step
  auto int32_actions = mb;
  int32_actions.actions = mb.actions.to(torch::kInt32);
  EXPECT_FALSE(PpoFusedUpdate(categorical).applies(int32_actions));
  categorical->use_fused_path(false);  // the modules' own operations
  EXPECT_FALSE(PpoFusedUpdate(categorical).applies(mb));
}

// Two agents from one seed, one on each path, on CartPole with several options.
std::vector<torch::Tensor> trained(bool fused) {
  test::register_builtins();
  auto agent = make_agent("ppo", "CartPole-v1",
                          {"seed=2", "torch_threads=1", "hyperparams.n_envs=2", "hyperparams.n_steps=64",
                           "hyperparams.batch_size=32", "hyperparams.n_epochs=3", "hyperparams.ent_coef=0.01",
                           "hyperparams.clip_range_vf=0.2", "hyperparams.normalize_obs=true",
                           "hyperparams.policy.hidden=[32, 32]"});
  agent->set_progress_bar(false);
  auto& ppo = dynamic_cast<PpoAgent&>(*agent);
  ppo.use_fused_update(fused);
  agent->learn(512);
  EXPECT_TRUE(PpoFusedUpdate(ppo.policy()).applies(ppo.minibatches().front()));  // the plain path was there to take
  std::vector<torch::Tensor> out;
  for (const auto& p : ppo.policy()->parameters()) out.push_back(p.detach().clone());
  return out;
}

TEST(PpoFusedUpdate, AgentsOnBothPathsStayEqualBitForBit) {
  const auto plain = trained(true), autograd = trained(false);
  ASSERT_EQ(plain.size(), autograd.size());
  for (std::size_t i = 0; i < plain.size(); ++i)
    EXPECT_TRUE(torch::equal(plain[i], autograd[i])) << "parameter " << i << ": "
                                                     << (plain[i] - autograd[i]).abs().max().item<double>();
}

}  // namespace
}  // namespace rlzoo
