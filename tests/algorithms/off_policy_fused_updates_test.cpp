// SAC's and TD3's fused gradient steps (algorithms/sac/sac_fused_update.h,
// algorithms/td3/td3_fused_update.h) against their LibTorch steps: each phase against the loss
// functions on one batch, and two agents from the same seed, one on each path, which see the
// same replay data and random draws, so their networks must agree to float rounding after the
// first update and stay together after many.
#include <gtest/gtest.h>

#include <torch/torch.h>

#include <string>
#include <vector>

#include "algorithms/sac/sac.h"
#include "algorithms/sac/sac_fused_update.h"
#include "algorithms/sac/sac_loss.h"
#include "algorithms/td3/td3.h"
#include "algorithms/td3/td3_fused_update.h"
#include "algorithms/td3/td3_loss.h"
#include "rl/agent.h"
#include "tests/support/builtin_registries.h"

namespace rlzoo {
namespace {

// An agent of `algo` on Pendulum-v1 with the fused update on or off.
std::unique_ptr<Agent> pendulum_agent(const std::string& algo, std::vector<std::string> sets, bool fused) {
  test::register_builtins();
  sets.insert(sets.end(), {"seed=5", "torch_threads=1", "hyperparams.batch_size=16", "hyperparams.learning_starts=40",
                           "hyperparams.learning_rate=0.003"});
  auto agent = make_agent(algo, "Pendulum-v1", sets);
  agent->set_progress_bar(false);
  if (auto* sac = dynamic_cast<SacAgent*>(agent.get())) {
    sac->use_fused_update(fused);
    EXPECT_EQ(sac->fused_update_applies(), fused);
  } else {
    auto& td3 = dynamic_cast<Td3Agent&>(*agent);
    td3.use_fused_update(fused);
    EXPECT_EQ(td3.fused_update_applies(), fused);
  }
  return agent;
}

// Every network's parameters (actors, critics and their targets), copied.
std::vector<torch::Tensor> snapshot(Agent& agent) {
  std::vector<torch::nn::Module*> modules;
  if (auto* sac = dynamic_cast<SacAgent*>(&agent))
    modules = {sac->actor().get(), sac->critic().get(), sac->critic_target().get()};
  else if (auto* td3 = dynamic_cast<Td3Agent*>(&agent))
    modules = {td3->actor().get(), td3->actor_target().get(), td3->critic().get(), td3->critic_target().get()};
  std::vector<torch::Tensor> out;
  for (torch::nn::Module* m : modules)
    for (const auto& p : m->parameters()) out.push_back(p.detach().clone());
  return out;
}

// The largest difference between two snapshots relative to each parameter's scale.
double largest_difference(const std::vector<torch::Tensor>& x, const std::vector<torch::Tensor>& y) {
  EXPECT_EQ(x.size(), y.size());
  double worst = 0;
  for (std::size_t i = 0; i < x.size(); ++i)
    worst = std::max(worst, ((x[i] - y[i]).abs().max() / (1.0 + x[i].abs().max())).item<double>());
  return worst;
}

// One agent's parameters (and SAC's entropy coefficient) after its first two updates and
// after 160 more. Agents run one after the other: the global LibTorch generator their draws
// come from is seeded when an agent is made.
struct Run {
  std::vector<torch::Tensor> initial, first, later;
  double alpha_first = 0, alpha_later = 0;
};
Run run(const std::string& algo, const std::vector<std::string>& sets, bool fused) {
  auto agent = pendulum_agent(algo, sets, fused);
  auto* sac = dynamic_cast<SacAgent*>(agent.get());
  auto& off_policy = dynamic_cast<ContinuousOffPolicyAgent&>(*agent);
  Run r;
  r.initial = snapshot(*agent);
  agent->learn(42);  // TD3's actor and targets move on the second
  EXPECT_EQ(off_policy.n_updates(), 2);
  r.first = snapshot(*agent);
  if (sac) r.alpha_first = sac->entropy_coefficient();
  agent->learn(160);
  EXPECT_EQ(off_policy.n_updates(), 162);
  r.later = snapshot(*agent);
  if (sac) r.alpha_later = sac->entropy_coefficient();
  return r;
}

void expect_paths_agree(const std::string& algo, const std::vector<std::string>& sets) {
  const Run a = run(algo, sets, true), b = run(algo, sets, false);
  ASSERT_EQ(largest_difference(a.initial, b.initial), 0.0);  // the same seed: the same networks
  for (std::size_t i = 0; i < a.initial.size(); ++i)          // the fused steps moved every one
    EXPECT_FALSE(torch::equal(a.initial[i], a.first[i])) << i;
  EXPECT_LT(largest_difference(a.first, b.first), 1e-6);
  EXPECT_NEAR(a.alpha_first, b.alpha_first, 1e-6);
  EXPECT_LT(largest_difference(a.later, b.later), 1e-5);
  EXPECT_NEAR(a.alpha_later, b.alpha_later, 1e-6);
}

// A random batch of `rows` transitions with 3-float observations and `d` action dimensions,
// about a third of them terminal.
ReplayRowTensors random_batch(std::int64_t rows, std::int64_t d) {
  ReplayRowTensors t;
  t.obs = torch::randn({rows, 3});
  t.next_obs = torch::randn({rows, 3});
  t.actions = torch::rand({rows, d}) * 2 - 1;
  t.rewards = torch::randn({rows});
  t.discounts = torch::full({rows}, 0.99f);
  t.terminated = (torch::rand({rows}) < 0.3).to(torch::kFloat32);
  return t;
}

// Each parameter's gradient (zeros where it has none), the gradients then cleared.
std::vector<torch::Tensor> take_gradients(torch::nn::Module& m) {
  std::vector<torch::Tensor> g;
  for (auto& p : m.parameters()) {
    g.push_back(p.grad().defined() ? p.grad().clone() : torch::zeros_like(p));
    p.mutable_grad() = torch::Tensor();
  }
  return g;
}

void expect_close(const std::vector<torch::Tensor>& a, const std::vector<torch::Tensor>& b, const char* what) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i)
    EXPECT_TRUE(torch::allclose(a[i], b[i], 1e-4, 1e-6)) << what << " " << i << ": " << (a[i] - b[i]).abs().max();
}

PolicyConfig small_relu_networks() {
  PolicyConfig cfg;
  cfg.hidden = {16, 8};
  cfg.activation = "relu";
  return cfg;
}

// Each phase against sac_loss.h's functions on one batch: the losses and every gradient.
TEST(SacFusedUpdate, PhasesMatchTheLossFunctions) {
  torch::manual_seed(11);
  const Space obs_space = Space::box(-1, 1, {3});
  const PolicyConfig cfg = small_relu_networks();
  const std::int64_t d = 2, rows = 12;
  SquashedGaussianActor actor(obs_space, d, cfg);
  ContinuousCritic critic(obs_space, d, cfg, 2), target(obs_space, d, cfg, 2);
  {
    torch::NoGradGuard no_grad;  // spread the log-stds so that some are clamped
    actor->parameters()[4].mul_(40.0);
  }
  auto update = SacFusedUpdate::make(actor, critic, target);
  ASSERT_TRUE(update);
  ASSERT_TRUE(update->applies());
  const ReplayRowTensors t = random_batch(rows, d);
  const ReplayRows batch = t.rows();
  const torch::Tensor &obs = t.obs, &next = t.next_obs, &actions = t.actions;
  const auto noise = torch::randn({rows, d}), next_noise = torch::randn({rows, d});
  const double alpha = 0.3;
  // The reference, with LibTorch's operations.
  const auto [mean, log_std] = actor->forward({obs});
  const SquashedSample pi = squashed_gaussian_sample(mean, log_std, noise);
  torch::Tensor y;
  {
    torch::NoGradGuard no_grad;
    const auto [next_mean, next_log_std] = actor->forward({next});
    const SquashedSample next_pi = squashed_gaussian_sample(next_mean, next_log_std, next_noise);
    y = sac_critic_target(target->forward({next}, next_pi.actions), next_pi.log_prob, t.rewards, t.discounts, t.terminated,
                          alpha);
  }
  const auto critic_loss = sac_critic_loss(critic->forward({obs}, actions), y);
  critic_loss.backward();
  const auto critic_grads = take_gradients(*critic);
  const auto actor_loss = sac_actor_loss(critic->forward({obs}, pi.actions), pi.log_prob, alpha);
  actor_loss.backward();
  const auto actor_grads = take_gradients(*actor);
  take_gradients(*critic);
  // The fused phases.
  EXPECT_NEAR(update->sample_policy(batch, noise.data_ptr<float>()), pi.log_prob.mean().item<double>(), 1e-5);
  EXPECT_NEAR(update->critic_gradients(batch, next_noise.data_ptr<float>(), alpha), critic_loss.item<double>(),
              1e-5 * (1 + critic_loss.item<double>()));
  expect_close(take_gradients(*critic), critic_grads, "critic");
  EXPECT_NEAR(update->actor_gradients(alpha), actor_loss.item<double>(), 1e-5);
  expect_close(take_gradients(*actor), actor_grads, "actor");
  for (auto& p : critic->parameters()) EXPECT_FALSE(p.grad().defined());  // the actor's phase leaves the critics'
}

TEST(SacFusedUpdate, AgreesWithTheLibTorchStep) { expect_paths_agree("sac", {"hyperparams.policy.hidden=[32, 32]"}); }

TEST(SacFusedUpdate, AgreesWithThreeTanhCriticsAndAFixedEntropyCoefficient) {
  expect_paths_agree("sac", {"hyperparams.policy.hidden=[16]", "hyperparams.policy.activation=tanh",
                      "hyperparams.n_critics=3", "hyperparams.ent_coef=0.05"});
}

TEST(SacFusedUpdate, StandsAsideWhereItDoesNotApply) {
  test::register_builtins();
  // gSDE's noise needs the trunk's output: the LibTorch step.
  auto agent = make_agent("sac", "Pendulum-v1", {"hyperparams.use_sde=true", "hyperparams.policy.hidden=[8]"});
  EXPECT_FALSE(dynamic_cast<SacAgent&>(*agent).fused_update_applies());
  auto plain = make_agent("sac", "Pendulum-v1", {"hyperparams.policy.hidden=[8]"});
  EXPECT_TRUE(dynamic_cast<SacAgent&>(*plain).fused_update_applies());
}

// TD3's critic and actor phases against td3_loss.h's functions on one batch.
TEST(Td3FusedUpdate, PhasesMatchTheLossFunctions) {
  torch::manual_seed(12);
  const Space obs_space = Space::box(-1, 1, {3});
  const PolicyConfig cfg = small_relu_networks();
  const std::int64_t d = 2, rows = 12;
  DeterministicActor actor(obs_space, d, cfg), actor_target(obs_space, d, cfg);
  ContinuousCritic critic(obs_space, d, cfg, 2), target(obs_space, d, cfg, 2);
  auto update = Td3FusedUpdate::make(actor, actor_target, critic, target);
  ASSERT_TRUE(update);
  ASSERT_TRUE(update->applies());
  const ReplayRowTensors t = random_batch(rows, d);
  const ReplayRows batch = t.rows();
  const torch::Tensor &obs = t.obs, &next = t.next_obs, &actions = t.actions;
  const auto noise = torch::randn({rows, d}) * 3;  // some beyond the clip
  torch::Tensor y;
  {
    torch::NoGradGuard no_grad;
    const auto next_actions = td3_smoothed_actions(actor_target->forward({next}), noise, 0.2, 0.5);
    y = td3_critic_target(target->forward({next}, next_actions), t.rewards, t.discounts, t.terminated);
  }
  const auto critic_loss = td3_critic_loss(critic->forward({obs}, actions), y);
  critic_loss.backward();
  const auto critic_grads = take_gradients(*critic);
  const auto actor_loss = -critic->q1({obs}, actor->forward({obs})).mean();
  actor_loss.backward();
  const auto actor_grads = take_gradients(*actor);
  take_gradients(*critic);
  EXPECT_NEAR(update->critic_gradients(batch, noise.data_ptr<float>(), 0.2, 0.5), critic_loss.item<double>(),
              1e-5 * (1 + critic_loss.item<double>()));
  expect_close(take_gradients(*critic), critic_grads, "critic");
  EXPECT_NEAR(update->actor_gradients(batch), actor_loss.item<double>(), 1e-5);
  expect_close(take_gradients(*actor), actor_grads, "actor");
  for (auto& p : critic->parameters()) EXPECT_FALSE(p.grad().defined());  // the actor's phase leaves the critics'
}

TEST(Td3FusedUpdate, AgreesWithTheLibTorchStep) {
  expect_paths_agree("td3", {"hyperparams.policy.hidden=[32, 32]", "hyperparams.train_freq=2",
                             "hyperparams.gradient_steps=2"});
}

TEST(Td3FusedUpdate, DdpgAgreesWithTheLibTorchStep) {
  expect_paths_agree("ddpg", {"hyperparams.policy.hidden=[16]", "hyperparams.policy.activation=tanh"});
}

}  // namespace
}  // namespace rlzoo
