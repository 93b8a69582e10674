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
  EXPECT_THAT(error_of({"hyperparams.use_sde=true"}), HasSubstr("use_sde"));
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
