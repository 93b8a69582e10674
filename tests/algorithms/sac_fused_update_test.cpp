// SAC's fused gradient step (algorithms/sac/sac_fused_update.h) against its LibTorch step: two
// agents from the same seed, one on each path, see the same replay data and random draws, so
// their networks must agree to float rounding after the first update and stay together after
// many.
#include <gtest/gtest.h>

#include <torch/torch.h>

#include <string>
#include <vector>

#include "algorithms/sac/sac.h"
#include "algorithms/sac/sac_fused_update.h"
#include "algorithms/sac/sac_loss.h"
#include "rl/agent.h"
#include "tests/support/builtin_registries.h"

namespace rlzoo {
namespace {

std::unique_ptr<Agent> sac_agent(std::vector<std::string> sets, bool fused) {
  test::register_builtins();
  sets.insert(sets.end(), {"seed=5", "torch_threads=1", "hyperparams.batch_size=16", "hyperparams.learning_starts=40",
                           "hyperparams.learning_rate=0.003"});
  auto agent = make_agent("sac", "Pendulum-v1", sets);
  agent->set_progress_bar(false);
  auto& sac = dynamic_cast<SacAgent&>(*agent);
  sac.use_fused_update(fused);
  EXPECT_EQ(sac.fused_update_applies(), fused);
  return agent;
}

// The actor's, critics' and target critics' parameters, copied.
std::vector<torch::Tensor> snapshot(SacAgent& sac) {
  std::vector<torch::Tensor> out;
  for (torch::nn::Module* m : std::initializer_list<torch::nn::Module*>{sac.actor().get(), sac.critic().get(),
                                                                       sac.critic_target().get()})
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

// One agent's parameters and entropy coefficient after its first update and after 160 more.
// Agents run one after the other: the global LibTorch generator their draws come from is
// seeded when an agent is made.
struct Run {
  std::vector<torch::Tensor> initial, first, later;
  double alpha_first = 0, alpha_later = 0;
};
Run run(const std::vector<std::string>& sets, bool fused) {
  auto agent = sac_agent(sets, fused);
  auto& sac = dynamic_cast<SacAgent&>(*agent);
  Run r;
  r.initial = snapshot(sac);
  agent->learn(41);
  EXPECT_EQ(sac.n_updates(), 1);
  r.first = snapshot(sac);
  r.alpha_first = sac.entropy_coefficient();
  agent->learn(160);
  EXPECT_EQ(sac.n_updates(), 161);
  r.later = snapshot(sac);
  r.alpha_later = sac.entropy_coefficient();
  return r;
}

void expect_paths_agree(const std::vector<std::string>& sets) {
  const Run a = run(sets, true), b = run(sets, false);
  ASSERT_EQ(largest_difference(a.initial, b.initial), 0.0);  // the same seed: the same networks
  EXPECT_GT(largest_difference(a.initial, a.first), 1e-4);   // the fused step moved them
  EXPECT_LT(largest_difference(a.first, b.first), 1e-6);
  EXPECT_NEAR(a.alpha_first, b.alpha_first, 1e-6);
  EXPECT_LT(largest_difference(a.later, b.later), 1e-5);
  EXPECT_NEAR(a.alpha_later, b.alpha_later, 1e-6);
}

// Each phase against sac_loss.h's functions on one batch: the losses and every gradient.
TEST(SacFusedUpdate, PhasesMatchTheLossFunctions) {
  torch::manual_seed(11);
  const Space obs_space = Space::box(-1, 1, {3});
  PolicyConfig cfg;
  cfg.hidden = {16, 8};
  cfg.activation = "relu";
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
  const auto obs = torch::randn({rows, 3}), next = torch::randn({rows, 3});
  const auto actions = torch::rand({rows, d}) * 2 - 1;
  const auto rewards = torch::randn({rows}), discounts = torch::full({rows}, 0.99f);
  const auto terminated = (torch::rand({rows}) < 0.3).to(torch::kFloat32);
  const auto noise = torch::randn({rows, d}), next_noise = torch::randn({rows, d});
  const double alpha = 0.3;
  const SacFusedUpdate::Batch batch{obs.data_ptr<float>(),       next.data_ptr<float>(),      actions.data_ptr<float>(),
                                    rewards.data_ptr<float>(),   discounts.data_ptr<float>(), terminated.data_ptr<float>(),
                                    rows};
  auto grads_of = [](torch::nn::Module& m) {
    std::vector<torch::Tensor> g;
    for (auto& p : m.parameters()) {
      g.push_back(p.grad().defined() ? p.grad().clone() : torch::zeros_like(p));
      p.mutable_grad() = torch::Tensor();
    }
    return g;
  };
  auto expect_close = [](const std::vector<torch::Tensor>& a, const std::vector<torch::Tensor>& b, const char* what) {
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i)
      EXPECT_TRUE(torch::allclose(a[i], b[i], 1e-4, 1e-6)) << what << " " << i << ": " << (a[i] - b[i]).abs().max();
  };
  // The reference, with LibTorch's operations.
  const auto [mean, log_std] = actor->forward({obs});
  const SquashedSample pi = squashed_gaussian_sample(mean, log_std, noise);
  torch::Tensor y;
  {
    torch::NoGradGuard no_grad;
    const auto [next_mean, next_log_std] = actor->forward({next});
    const SquashedSample next_pi = squashed_gaussian_sample(next_mean, next_log_std, next_noise);
    y = sac_critic_target(target->forward({next}, next_pi.actions), next_pi.log_prob, rewards, discounts, terminated,
                          alpha);
  }
  const auto critic_loss = sac_critic_loss(critic->forward({obs}, actions), y);
  critic_loss.backward();
  const auto critic_grads = grads_of(*critic);
  const auto actor_loss = sac_actor_loss(critic->forward({obs}, pi.actions), pi.log_prob, alpha);
  actor_loss.backward();
  const auto actor_grads = grads_of(*actor);
  grads_of(*critic);
  // The fused phases.
  EXPECT_NEAR(update->sample_policy(batch, noise.data_ptr<float>()), pi.log_prob.mean().item<double>(), 1e-5);
  EXPECT_NEAR(update->critic_gradients(batch, next_noise.data_ptr<float>(), alpha), critic_loss.item<double>(),
              1e-5 * (1 + critic_loss.item<double>()));
  expect_close(grads_of(*critic), critic_grads, "critic");
  EXPECT_NEAR(update->actor_gradients(alpha), actor_loss.item<double>(), 1e-5);
  expect_close(grads_of(*actor), actor_grads, "actor");
  for (auto& p : critic->parameters()) EXPECT_FALSE(p.grad().defined());  // the actor's phase leaves the critics'
}

TEST(SacFusedUpdate, AgreesWithTheLibTorchStep) { expect_paths_agree({"hyperparams.policy.hidden=[32, 32]"}); }

TEST(SacFusedUpdate, AgreesWithThreeTanhCriticsAndAFixedEntropyCoefficient) {
  expect_paths_agree({"hyperparams.policy.hidden=[16]", "hyperparams.policy.activation=tanh",
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

}  // namespace
}  // namespace rlzoo
