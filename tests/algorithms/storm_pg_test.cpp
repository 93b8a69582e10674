// The policy-gradient family's estimator core: STORM-PG with alpha = 1 is GPOMDP, importance
// weights (1 at equal parameters; a hand product of per-step ratios), unbiasedness on a
// linear-Gaussian bandit with a closed-form gradient, the recursions on hand numbers, exact resume.
#include <gtest/gtest.h>

#include "rl/agent.h"
#include "algorithms/builtin.h"
#include "algorithms/pg/gpomdp.h"
#include "algorithms/pg/pg_agent.h"
#include "core/registry/env_registry.h"
#include "envs/builtin.h"
#include "tests/support/test_paths.h"

namespace rlzoo::pg {
namespace {

std::unique_ptr<Agent> agent(const std::string& algo, std::vector<std::string> extra = {}) {
  register_builtin_envs();
  register_builtin_algorithms();
  std::vector<std::string> o = {"seed=3", "hyperparams.batch_size=5", "hyperparams.initial_batch=5",
                                "hyperparams.horizon=50", "log_every=1000000"};
  o.insert(o.end(), extra.begin(), extra.end());
  auto a = make_agent(algo, "CartPole-v1", o);
  a->set_progress_bar(false);
  return a;
}

TEST(StormPg, AlphaOneIsPlainGpomdp) {
  // One agent at a time: sampling draws from LibTorch's process-wide generator, which each
  // agent seeds when it is made.
  auto run = [](const std::string& algo, std::vector<std::string> extra) {
    auto a = agent(algo, std::move(extra));
    auto& v = dynamic_cast<PgAgent&>(*a);
    std::vector<torch::Tensor> estimates;
    for (int i = 0; i < 4; ++i) {
      v.iterate();
      estimates.push_back(v.estimate().clone());
    }
    estimates.push_back(flat_parameters(v.policy()));
    return estimates;
  };
  const auto storm = run("storm_pg", {"hyperparams.alpha=1"});
  const auto plain = run("gpomdp", {});
  for (std::size_t i = 0; i < storm.size(); ++i) EXPECT_TRUE(torch::equal(storm[i], plain[i])) << "entry " << i;
}

TEST(StormPg, UpdateRulesOnHandNumbers) {
  const auto t = [](std::vector<double> v) { return torch::tensor(v, torch::kFloat64); };
  // Step 1: g1 = d1 + (1 - a)(g0 - d~1) with a = 0.25.
  const auto g1 = storm_update(t({1, 2}), t({0.5, 1}), t({3, 3}), 0.25);
  EXPECT_TRUE(torch::allclose(g1, t({1 + 0.75 * 2.5, 2 + 0.75 * 2.0})));  // [2.875, 3.5]
  // Step 2 from g1: d2 = [-1, 0], d~2 = [0.5, 0.5]: g2 = [-1 + 0.75 * 2.375, 0 + 0.75 * 3.0].
  const auto g2 = storm_update(t({-1, 0}), t({0.5, 0.5}), g1, 0.25);
  EXPECT_TRUE(torch::allclose(g2, t({0.78125, 2.25})));
  // alpha = 0 is the SARAH recursion; SVRG adds to the snapshot mean.
  EXPECT_TRUE(torch::allclose(storm_update(t({1, 1}), t({2, 0}), t({5, 5}), 0.0), sarah_update(t({1, 1}), t({2, 0}), t({5, 5}))));
  EXPECT_TRUE(torch::allclose(sarah_update(t({1, 1}), t({2, 0}), t({5, 5})), t({4, 6})));
  EXPECT_TRUE(torch::allclose(svrg_update(t({1, 1}), t({2, 0}), t({5, 5})), t({4, 6})));
}

TEST(StormPg, ImportanceWeightsAreOneAtEqualParametersAndAProductOfRatios) {
  register_builtin_envs();
  torch::manual_seed(1);
  const auto spec = make_env("CartPole-v1")->spec();
  PolicyConfig cfg;
  cfg.hidden = {8};
  PgPolicy a(spec.observation_space, spec.action_space, cfg), b(spec.observation_space, spec.action_space, cfg);
  std::vector<std::unique_ptr<Env>> envs;
  Rng seeds(4);
  const auto batch = sample_trajectories(*a, envs, [] { return make_env("CartPole-v1"); }, 3, 6, seeds);
  const auto la = batch_log_probs(*a, batch), lb = batch_log_probs(*b, batch);
  EXPECT_TRUE(torch::equal(importance_weights(la, la, batch.mask), batch.mask));
  const auto w = importance_weights(la, lb, batch.mask);  // pi_a / pi_b
  torch::NoGradGuard no_grad;
  for (std::int64_t i = 0; i < 3; ++i) {
    double product = 1.0;
    for (std::int64_t h = 0; h < batch.lengths[static_cast<std::size_t>(i)]; ++h) {
      const auto s = batch.obs[i][h].unsqueeze(0);
      const auto act = batch.actions[i][h].unsqueeze(0);
      product *= std::exp(a->log_prob(s, act).item<double>()) / std::exp(b->log_prob(s, act).item<double>());
      EXPECT_NEAR(w[i][h].item<double>(), product, 1e-6 * product) << "trajectory " << i << " step " << h;
    }
  }
  EXPECT_LE(importance_weights(la, lb, batch.mask, 1.1).max().item<double>(), 1.1);
}

// A one-step bandit: obs [1], action a in R, reward -(a - 0.7)^2.
class BanditEnv : public Env {
 public:
  BanditEnv() : Env(EnvSpec{"Bandit-v0", Space::box(1.0, 1.0, {1}), Space::box(-100, 100, {1}), 1}) {}

 protected:
  void do_reset(std::optional<std::uint64_t>, Bytes obs) override { as_span<float>(obs)[0] = 1.0f; }
  StepResult do_step(ConstBytes action, Bytes obs) override {
    const double a = as_span<const float>(action)[0];
    as_span<float>(obs)[0] = 1.0f;
    return {-(a - 0.7) * (a - 0.7), true, false};
  }
};

// J(theta) = -((mu - c)^2 + sigma^2): its exact gradient through the network.
torch::Tensor exact_gradient(PgPolicyImpl& p) {
  const auto mu = p.act(torch::ones({1, 1}), /*deterministic=*/true).squeeze();
  torch::Tensor log_std;
  for (const auto& item : p.named_parameters())
    if (item.key() == "log_std") log_std = item.value();
  const auto j = -((mu - 0.7).pow(2) + torch::exp(2 * log_std).sum());
  const auto grads = torch::autograd::grad({j}, p.parameters());
  std::vector<torch::Tensor> parts;
  for (const auto& g : grads) parts.push_back(g.flatten().to(torch::kFloat64));
  return torch::cat(parts);
}

// Mean of `estimate()` over many batches against `expected`, coordinate by coordinate, within 4.5
// standard errors (plus a tiny absolute slack).
void expect_unbiased(const std::function<torch::Tensor()>& estimate, const torch::Tensor& expected, int batches) {
  std::vector<torch::Tensor> xs;
  for (int i = 0; i < batches; ++i) xs.push_back(estimate());
  const auto all = torch::stack(xs);
  const auto mean = all.mean(0), se = all.std(0) / std::sqrt(static_cast<double>(batches));
  const auto z = ((mean - expected).abs() - 1e-9) / (se + 1e-12);
  EXPECT_LT(z.max().item<double>(), 4.5) << "mean " << mean << "\nexpected " << expected << "\nse " << se;
}

TEST(StormPg, EstimatorsAreUnbiasedOnALinearGaussianBandit) {
  torch::manual_seed(7);
  PolicyConfig cfg;
  cfg.hidden = {4};
  cfg.log_std_init = -0.5;
  const Space obs = Space::box(1.0, 1.0, {1}), act = Space::box(-100, 100, {1});
  PgPolicy theta(obs, act, cfg), old(obs, act, cfg);
  std::vector<std::unique_ptr<Env>> envs;
  auto make = [] { return std::unique_ptr<Env>(std::make_unique<BanditEnv>()); };
  Rng seeds(9);
  const std::int64_t n = 20;
  // Plain GPOMDP without a baseline: unbiased.
  expect_unbiased([&] { return gpomdp_gradient(*theta, sample_trajectories(*theta, envs, make, n, 1, seeds), 1.0, Baseline::None); },
                  exact_gradient(*theta), 300);
  // With the batch-mean baseline: (1 - 1/N) of the gradient (the baseline uses the same batch).
  expect_unbiased([&] { return gpomdp_gradient(*theta, sample_trajectories(*theta, envs, make, n, 1, seeds), 1.0, Baseline::Average); },
                  exact_gradient(*theta) * (1.0 - 1.0 / n), 300);
  // The importance-weighted gradient at other parameters from theta's data: grad J(old).
  expect_unbiased(
      [&] {
        const auto b = sample_trajectories(*theta, envs, make, n, 1, seeds);
        const auto w = importance_weights(batch_log_probs(*old, b), batch_log_probs(*theta, b), b.mask);
        return gpomdp_gradient(*old, b, 1.0, Baseline::None, w);
      },
      exact_gradient(*old), 300);
}

TEST(StormPg, CheckpointsResumeExactly) {
  for (const char* algo : {"storm_pg", "svrpg", "srvrpg"}) {
    SCOPED_TRACE(algo);
    auto straight = agent(algo, {"hyperparams.epoch_length=3"});
    auto& s = dynamic_cast<PgAgent&>(*straight);
    for (int i = 0; i < 5; ++i) s.iterate();
    const auto straight_params = flat_parameters(s.policy());
    auto first = agent(algo, {"hyperparams.epoch_length=3"});
    auto& f = dynamic_cast<PgAgent&>(*first);
    for (int i = 0; i < 3; ++i) f.iterate();
    const auto dir = test::make_temp_dir("vrpg") + "/a";
    first->save(dir);
    torch::manual_seed(12345);  // the checkpoint, not the process, must restore the generator
    auto resumed = load_agent(dir);
    auto& r = dynamic_cast<PgAgent&>(*resumed);
    for (int i = 0; i < 2; ++i) r.iterate();
    EXPECT_TRUE(torch::equal(flat_parameters(r.policy()), straight_params));
    EXPECT_EQ(r.trajectories(), s.trajectories());
  }
}

TEST(StormPg, TrajectoryBudgetAndErrors) {
  auto a = agent("storm_pg", {"hyperparams.max_trajectories=25", "hyperparams.initial_batch=10"});
  a->learn(1'000'000);
  EXPECT_EQ(dynamic_cast<PgAgent&>(*a).trajectories(), 25);  // 10 + 3 x 5
  register_builtin_envs();
  register_builtin_algorithms();
  EXPECT_NE(test::error_of([] { make_agent("storm_pg", "CartPole-v1", {"hyperparams.alpha=2"}); }).find("alpha"),
            std::string::npos);
  EXPECT_NE(test::error_of([] {
              make_agent("gpomdp", "CartPole-v1", {"hyperparams.policy.recurrent.cell=lstm"});
            }).find("no recurrent policies"),
            std::string::npos);
}

// rllab's GaussianMLPPolicy(learn_std=False) and the SRVR-PG repository's Adam betas: a fixed
// standard deviation is no parameter (the estimate and Adam see the mean's weights only) and
// stays at its initial value; fixed_std on Discrete actions is refused at its key.
TEST(StormPg, FixedStandardDeviationAndAdamBetas) {
  register_builtin_envs();
  register_builtin_algorithms();
  auto make = [](const std::string& fixed, const std::string& beta2) {
    auto a = make_agent("storm_pg", "MountainCarContinuous-v0",
                        {"seed=2", "hyperparams.batch_size=3", "hyperparams.initial_batch=3", "hyperparams.horizon=20",
                         "hyperparams.policy.log_std_init=-0.5", "hyperparams.adam_beta2=" + beta2,
                         "hyperparams.fixed_std=" + fixed, "log_every=1000000"});
    a->set_progress_bar(false);
    for (int i = 0; i < 3; ++i) dynamic_cast<PgAgent&>(*a).iterate();  // one agent at a time: one generator
    return a;
  };
  auto fixed = make("true", "0.9"), learned = make("false", "0.9"), other_beta = make("true", "0.999");
  auto& f = dynamic_cast<PgAgent&>(*fixed);
  auto& l = dynamic_cast<PgAgent&>(*learned);
  EXPECT_EQ(f.policy().parameters().size() + 1, l.policy().parameters().size());
  // Same seed and samples for the first batch; Adam's second moment differs from the second step on.
  EXPECT_FALSE(torch::equal(flat_parameters(f.policy()), flat_parameters(dynamic_cast<PgAgent&>(*other_beta).policy())));
  EXPECT_EQ(f.estimate().numel() + 1, l.estimate().numel());
  const auto log_std = [](PgPolicyImpl& p) {
    for (const auto& b : p.named_buffers())
      if (b.key() == "log_std") return b.value().item<float>();
    for (const auto& b : p.named_parameters())
      if (b.key() == "log_std") return b.value().item<float>();
    return 0.0f;
  };
  EXPECT_EQ(log_std(f.policy()), -0.5f);
  EXPECT_NE(log_std(l.policy()), -0.5f);
  const auto error = test::error_of([] { make_agent("gpomdp", "CartPole-v1", {"hyperparams.fixed_std=true"}); });
  EXPECT_NE(error.find("hyperparams.fixed_std"), std::string::npos) << error;
  EXPECT_NE(error.find("Box actions"), std::string::npos) << error;
}

}  // namespace
}  // namespace rlzoo::pg

namespace rlzoo::pg {
namespace {

// runtime.actors on a policy-gradient preset: each iteration's batch is split over the actor
// threads (each sampling with the current policy), and the runtime keys that do not apply are
// refused naming them.
TEST(StormPg, ActorThreadsSampleEveryIterationsBatch) {
  register_builtin_envs();
  register_builtin_algorithms();
  auto agent = make_agent("storm_pg", "CartPole-v1",
                          {"runtime.actors=2", "hyperparams.batch_size=4", "hyperparams.initial_batch=6",
                           "hyperparams.horizon=40", "log_every=1000000"});
  agent->set_progress_bar(false);
  agent->learn(400);
  auto& pg = dynamic_cast<PgAgent&>(*agent);
  EXPECT_GE(agent->num_timesteps(), 400);
  EXPECT_EQ(agent->last_training().backend, Backend::threads);
  EXPECT_EQ(agent->last_training().actor_batches, 2 * pg.iterations());  // both actors in every iteration
  EXPECT_EQ(pg.trajectories(), 6 + 4 * (pg.iterations() - 1));
  for (const char* bad : {"runtime.envs_per_actor=2", "runtime.inference.max_batch=8"}) {
    const std::string e = test::error_of([&] { make_agent("gpomdp", "CartPole-v1", {"runtime.actors=2", bad}); });
    EXPECT_NE(e.find(std::string(bad).substr(0, std::string(bad).find('='))), std::string::npos) << e;
  }
}

}  // namespace
}  // namespace rlzoo::pg
