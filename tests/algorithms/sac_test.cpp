// SAC's arithmetic against hand computations (sac_loss.h), its config errors, and its agent's
// round trip of act() and checkpoints.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <torch/torch.h>

#include <cmath>

#include "algorithms/sac/sac.h"
#include "algorithms/sac/sac_config.h"
#include "algorithms/sac/sac_loss.h"
#include "rl/agent.h"
#include "rl/box_action_scaling.h"
#include "rl/continuous_acting.h"
#include "core/common/bytes.h"
#include "tests/support/builtin_registries.h"

namespace rlzoo {
namespace {

using ::testing::HasSubstr;

// log N(u; m, s) - log(1 - tanh(u)^2), one dimension, straight from the definitions.
double closed_form_log_prob(double u, double m, double log_s) {
  const double s = std::exp(log_s);
  const double gauss = -0.5 * ((u - m) / s) * ((u - m) / s) - log_s - 0.5 * std::log(2 * M_PI);
  return gauss - std::log(1 - std::tanh(u) * std::tanh(u));
}

TEST(SacLoss, SquashedGaussianLogProbIsTheClosedFormAndStaysFiniteInTheTails) {
  const auto mean = torch::tensor({{0.3, -1.2}, {0.0, 2.0}}, torch::kFloat64);
  const auto log_std = torch::tensor({{-0.5, 0.1}, {0.7, -2.0}}, torch::kFloat64);
  const auto noise = torch::tensor({{1.0, -0.4}, {0.2, 0.9}}, torch::kFloat64);
  const auto s = squashed_gaussian_sample(mean, log_std, noise);
  for (int r = 0; r < 2; ++r) {
    double expected = 0;
    for (int j = 0; j < 2; ++j) {
      const double m = mean[r][j].item<double>(), ls = log_std[r][j].item<double>();
      const double u = m + std::exp(ls) * noise[r][j].item<double>();
      EXPECT_NEAR(s.actions[r][j].item<double>(), std::tanh(u), 1e-15);
      expected += closed_form_log_prob(u, m, ls);
    }
    EXPECT_NEAR(s.log_prob[r].item<double>(), expected, 1e-10) << r;
  }
  // Where 1 - tanh(u)^2 rounds to 0 in float the naive form is -inf; this one is not.
  const auto far = squashed_gaussian_log_prob(torch::tensor({{30.0f}}), torch::tensor({{30.0f}}), torch::tensor({{0.0f}}));
  EXPECT_TRUE(std::isfinite(far.item<float>()));
  EXPECT_NEAR(far.item<float>(), -0.5 * std::log(2 * M_PI) - 2 * (std::log(2.0) - 30.0), 1e-3);
}

TEST(SacLoss, CriticTargetLossActorLossAndEntropyLossByHand) {
  // Two critics, two samples.
  const auto next_q = torch::tensor({{1.0, 5.0}, {2.0, 4.0}});
  const auto next_log_prob = torch::tensor({-1.0, 0.5});
  const auto rewards = torch::tensor({0.5, -1.0}), discounts = torch::tensor({0.9, 0.81});
  const auto terminated = torch::tensor({0.0, 1.0});
  const auto target = sac_critic_target(next_q, next_log_prob, rewards, discounts, terminated, 0.2);
  EXPECT_NEAR(target[0].item<double>(), 0.5 + 0.9 * (1.0 - 0.2 * -1.0), 1e-6);  // min(1, 2) = 1
  EXPECT_NEAR(target[1].item<double>(), -1.0, 1e-6);                           // terminal
  const auto current = torch::tensor({{1.0, 0.0}, {2.0, -2.0}});
  const auto t = torch::tensor({0.0, 1.0});
  // 0.5 * (mean(1, 1) + mean(4, 9)) = 0.5 * (1 + 6.5)
  EXPECT_NEAR(sac_critic_loss(current, t).item<double>(), 3.75, 1e-6);
  const auto q_pi = torch::tensor({{3.0, -1.0}, {2.0, 0.0}});
  const auto log_prob = torch::tensor({-0.5, 1.5});
  // mean(0.1 * -0.5 - 2, 0.1 * 1.5 - (-1)) = mean(-2.05, 1.15)
  EXPECT_NEAR(sac_actor_loss(q_pi, log_prob, 0.1).item<double>(), -0.45, 1e-6);
  // d/d log_alpha of -mean(log_alpha (log_prob + target)) = -mean(log_prob + target), log_prob constant.
  const auto log_alpha = torch::zeros({1}, torch::requires_grad());
  const auto lp = torch::tensor({-0.5, 1.5}, torch::requires_grad());
  sac_entropy_loss(log_alpha, lp, -1.0).backward();
  EXPECT_NEAR(log_alpha.grad().item<double>(), -((-0.5 - 1.0) + (1.5 - 1.0)) / 2, 1e-6);
  EXPECT_FALSE(lp.grad().defined());
}

// gSDE's draw by hand: latent (1, 2), std (1, 0.5), weights noise (0.3, -0.4): the matrix
// (0.3, -0.2), u = 0.1 + 0.3 - 0.4 = 0, variance 1 + 4 x 0.25 = 2 (+1e-6); tanh'(0) = 1.
TEST(SacLoss, GsdeSampleByHand) {
  const auto mean = torch::tensor({{0.1}}, torch::kFloat64);
  const auto latent = torch::tensor({{1.0, 2.0}}, torch::kFloat64);
  const auto log_std = torch::tensor({{0.0}, {std::log(0.5)}}, torch::kFloat64);
  const auto weights = torch::tensor({{0.3}, {-0.4}}, torch::kFloat64);
  const SquashedSample s = squashed_sde_sample(mean, latent, log_std, weights);
  EXPECT_NEAR(s.actions.item<double>(), 0.0, 1e-12);
  const double var = 2.0 + 1e-6;
  EXPECT_NEAR(s.log_prob.item<double>(), -0.5 * 0.01 / var - 0.5 * std::log(var) - 0.5 * std::log(2 * M_PI), 1e-12);
}

// gSDE while acting (rl/continuous_acting.h): each env keeps its exploration matrix for a
// round (here rows of mean 0 and noise factor 1: the action is tanh of the matrix's one value),
// draws a new one when the next round begins, and every sde_sample_freq steps when that is set.
TEST(SacAgent, GsdeKeepsItsExplorationMatrixForARound) {
  struct Rows : BatchEvaluator {
    std::size_t in_row_bytes() const override { return sizeof(float); }
    std::size_t out_row_bytes() const override { return 2 * sizeof(float); }
    bool evaluate(ConstBytes, std::int64_t rows, Bytes out) override {
      auto f = as_span<float>(out);
      for (std::int64_t r = 0; r < rows; ++r) f[2 * r] = 0.0f, f[2 * r + 1] = 1.0f;
      return true;
    }
  };
  auto actions_of = [](std::int64_t sample_freq) {
    ContinuousActingSchedule schedule;
    schedule.total_envs = 2;
    schedule.seed = 9;
    ContinuousActorPolicy policy(std::make_shared<Rows>(), BoxActionScaling(Space::box(-1, 1, {1}), "test"),
                                 ContinuousActing::squashed_sde, ActionNoise{}, schedule, GsdeActing{1, sample_freq});
    std::vector<std::vector<float>> out;  // per step, both envs
    std::vector<float> obs(2), actions(2);
    for (std::int64_t step = 0; step < 6; ++step) {
      if (step % 3 == 0) policy.begin_trajectory(static_cast<std::uint64_t>(step / 3), StopSource{});
      ActBatch b;
      b.obs = std::as_bytes(std::span(obs));
      b.rows = 2;
      b.step = step;
      b.actions = std::as_writable_bytes(std::span(actions));
      EXPECT_TRUE(policy.act(b));
      out.push_back(actions);
    }
    return out;
  };
  const auto per_round = actions_of(-1);  // rounds of 3 steps
  EXPECT_NE(per_round[0][0], per_round[0][1]);  // each env its own matrix
  for (int k : {1, 2}) EXPECT_EQ(per_round[k], per_round[0]);
  EXPECT_NE(per_round[3], per_round[0]);
  for (int k : {4, 5}) EXPECT_EQ(per_round[k], per_round[3]);
  const auto every_2 = actions_of(2);
  EXPECT_EQ(every_2[1], every_2[0]);
  EXPECT_NE(every_2[2], every_2[1]);
  EXPECT_NE(every_2[3], every_2[2]);  // a new round
  EXPECT_EQ(every_2[4], every_2[3]);
}

// With gSDE the actor's head gives the mean only (clipped to +-2) and the log-std is a
// [latent, d] parameter from policy.log_std_init; deterministic actions are tanh(mean).
TEST(SacAgent, GsdeActorActsAndLearns) {
  test::register_builtins();
  auto agent = make_agent("sac", "Pendulum-v1",
                          {"seed=3", "hyperparams.use_sde=true", "hyperparams.policy.hidden=[8]",
                           "hyperparams.policy.log_std_init=-2", "hyperparams.learning_starts=16",
                           "hyperparams.batch_size=8", "hyperparams.train_freq=4", "hyperparams.gradient_steps=4"});
  agent->set_progress_bar(false);
  auto& sac = dynamic_cast<SacAgent&>(*agent);
  ASSERT_TRUE(sac.actor()->sde());
  EXPECT_EQ(sac.actor()->sde_log_std().sizes(), (std::vector<std::int64_t>{8, 1}));
  EXPECT_TRUE(torch::all(sac.actor()->sde_log_std() == -2.0).item<bool>());
  const auto before = sac.actor()->sde_log_std().detach().clone();
  agent->learn(64);
  EXPECT_EQ(sac.n_updates(), 4 * (64 - 16) / 4);
  EXPECT_FALSE(torch::equal(before, sac.actor()->sde_log_std()));  // the noise scale learns
  const auto obs = torch::randn({5, 3});
  torch::Tensor mean;
  {
    torch::NoGradGuard no_grad;
    mean = sac.actor()->forward_sde({obs}).first;
  }
  EXPECT_TRUE((mean.abs() <= kSdeClipMean).all().item<bool>());
  EXPECT_TRUE(torch::allclose(agent->act(obs), 2.0 * torch::tanh(mean), 1e-6, 1e-6));
  ActOptions sampled;
  sampled.deterministic = false;
  EXPECT_FALSE(torch::equal(agent->act(obs, sampled), agent->act(obs, sampled)));
}

TEST(SacConfig, EntropyCoefficientForms) {
  EXPECT_TRUE(parse_entropy_coefficient("auto")->learned);
  EXPECT_DOUBLE_EQ(parse_entropy_coefficient("auto")->initial, 1.0);
  EXPECT_DOUBLE_EQ(parse_entropy_coefficient("auto_0.1")->initial, 0.1);
  EXPECT_FALSE(parse_entropy_coefficient("0.05")->learned);
  EXPECT_DOUBLE_EQ(parse_entropy_coefficient("0.05")->initial, 0.05);
  for (const char* bad : {"", "automatic", "auto_", "auto_x", "-0.1", "0", "1e400"})
    EXPECT_FALSE(parse_entropy_coefficient(bad).has_value()) << bad;
}

TEST(SacAgent, BadSettingsAreRefusedAtTheirKey) {
  test::register_builtins();
  auto error_of = [](std::vector<std::string> overrides, const std::string& env = "Pendulum-v1") {
    try {
      make_agent("sac", env, overrides);
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_THAT(error_of({"hyperparams.ent_coef=lots"}), HasSubstr("ent_coef"));
  EXPECT_THAT(error_of({"hyperparams.target_entropy=high"}), HasSubstr("target_entropy"));
  EXPECT_THAT(error_of({"hyperparams.policy.log_std_init=-1"}), HasSubstr("log_std_init"));
  EXPECT_THAT(error_of({"hyperparams.policy.ortho_init=true"}), HasSubstr("ortho_init"));
  EXPECT_THAT(error_of({"hyperparams.gradient_steps=0"}), HasSubstr("gradient_steps"));
  EXPECT_EQ(error_of({"hyperparams.use_sde=true", "hyperparams.policy.log_std_init=-1"}), "no error");
  EXPECT_THAT(error_of({"hyperparams.sde_sample_freq=4"}), HasSubstr("gSDE setting"));
  EXPECT_THAT(error_of({"hyperparams.use_sde_at_warmup=true"}), HasSubstr("gSDE setting"));
  EXPECT_THAT(error_of({"hyperparams.use_sde=true", "hyperparams.sde_sample_freq=0"}), HasSubstr("sde_sample_freq"));
  EXPECT_THAT(error_of({}, "CartPole-v1"), HasSubstr("sac"));  // Discrete actions
}

// act(): actions inside the Box; the deterministic one is tanh(mean) rescaled, the same twice.
TEST(SacAgent, ActsInsideTheBoxAndDeterministicallyWhenAsked) {
  test::register_builtins();
  auto agent = make_agent("sac", "Pendulum-v1", {"seed=3", "hyperparams.policy.hidden=[8]"});
  const auto obs = torch::randn({5, 3});
  ActOptions sampled;
  sampled.deterministic = false;
  const auto a = agent->act(obs, sampled);
  EXPECT_EQ(a.sizes(), (std::vector<std::int64_t>{5, 1}));
  EXPECT_TRUE((a.abs() <= 2.0).all().item<bool>());  // Pendulum's torque bounds
  EXPECT_FALSE(torch::equal(a, agent->act(obs, sampled)));
  EXPECT_TRUE(torch::equal(agent->act(obs), agent->act(obs)));  // deterministic by default
  torch::Tensor mean;
  {
    torch::NoGradGuard no_grad;
    mean = dynamic_cast<SacAgent&>(*agent).actor()->forward({obs}).first;
  }
  EXPECT_TRUE(torch::allclose(agent->act(obs), 2.0 * torch::tanh(mean), 1e-6, 1e-6));  // Box [-2, 2]
}

}  // namespace
}  // namespace rlzoo
