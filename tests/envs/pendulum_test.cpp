#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "core/config/context.h"
#include "core/env/conformance.h"
#include "tests/envs/env_test_util.h"

namespace rlzoo {
namespace {

using test::EnvHarness;

constexpr double kPi = std::numbers::pi;

// -cost of a step from (theta, theta_dot) with torque u, with the angle already normalised.
double reward_for(double normalized_theta, double theta_dot, double u) {
  return -(normalized_theta * normalized_theta + 0.1 * theta_dot * theta_dot + 0.001 * u * u);
}

TEST(Pendulum, SpacesAndRegistration) {
  EnvHarness h("Pendulum-v1");
  const Space& os = h.env().observation_space();
  EXPECT_EQ(os.dtype(), DType::Float32);
  EXPECT_EQ(os.low(), (std::vector<double>{-1, -1, -8}));
  EXPECT_EQ(os.high(), (std::vector<double>{1, 1, 8}));
  EXPECT_EQ(h.env().action_space(), Space::box(-2.0, 2.0, {1}, DType::Float32));
  EXPECT_EQ(h.env().max_episode_steps(), 200);
  EXPECT_FALSE(h.env().spec().reward_threshold.has_value());
}

TEST(Pendulum, OneStepFollowsTheEquations) {
  EnvHarness h("Pendulum-v1");
  const double th = 0.3, thdot = -1.5, u = 1.25;
  const StepResult r = h.step_from({th, thdot}, u);
  const double newthdot = thdot + (3 * 10.0 / 2 * std::sin(th) + 3.0 * u) * 0.05;
  EXPECT_NEAR(h.state()[1], newthdot, 1e-15);
  EXPECT_NEAR(h.state()[0], th + newthdot * 0.05, 1e-15);
  EXPECT_NEAR(r.reward, reward_for(th, thdot, u), 1e-14);
  test::expect_obs(h.obs(), {std::cos(h.state()[0]), std::sin(h.state()[0]), h.state()[1]});
  EXPECT_FALSE(r.terminated);
}

TEST(Pendulum, ResetDrawsFromTheSeededRange) {
  EnvHarness h("Pendulum-v1");
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    h.reset(seed);
    EXPECT_GE(h.state()[0], -kPi);
    EXPECT_LE(h.state()[0], kPi);
    EXPECT_GE(h.state()[1], -1.0);
    EXPECT_LE(h.state()[1], 1.0);
  }
}

// The cost normalises the angle with a floored modulo: -4 rad counts as 2 pi - 4 (C's fmod
// would leave it at -4), and so on for several turns either way. The state keeps the raw angle.
TEST(Pendulum, CostWrapsNegativeAnglesWithAFlooredModulo) {
  EnvHarness h("Pendulum-v1");
  struct Case {
    double theta, normalized;
  };
  const Case cases[] = {
      {-4.0, -4.0 + 2 * kPi},
      {-10.0, -10.0 + 4 * kPi},
      {4.0, 4.0 - 2 * kPi},
      {1000.0, 1000.0 - 318 * kPi},
      {-kPi, -kPi},
      {kPi, -kPi},
      {0.5, 0.5},
  };
  for (const Case& c : cases) {
    const StepResult r = h.step_from({c.theta, 0.0}, 0.0);
    EXPECT_NEAR(r.reward, reward_for(c.normalized, 0.0, 0.0), 1e-9) << "theta " << c.theta;
    EXPECT_NEAR(h.state()[0], c.theta + h.state()[1] * 0.05, 1e-12) << "theta is not wrapped";
  }
}

TEST(Pendulum, SpeedIsClipped) {
  EnvHarness h("Pendulum-v1");
  h.step_from({0.0, 7.9}, 2.0);
  EXPECT_EQ(h.state(), (std::vector<double>{0.0 + 8.0 * 0.05, 8.0}));
  h.step_from({0.0, -7.9}, -2.0);
  EXPECT_EQ(h.state(), (std::vector<double>{0.0 - 8.0 * 0.05, -8.0}));
  // Already beyond the limit: clipped back, the cost uses the old speed.
  const StepResult r = h.step_from({0.0, -9.0}, 0.0);
  EXPECT_EQ(h.state()[1], -8.0);
  EXPECT_NEAR(r.reward, reward_for(0.0, -9.0, 0.0), 1e-12);
}

TEST(Pendulum, OutOfBoundTorqueIsClippedInDynamicsAndCost) {
  EnvHarness h("Pendulum-v1");
  const StepResult at_bound = h.step_from({0.3, 0.2}, 2.0);
  const auto state_at_bound = h.state();
  const StepResult beyond = h.step_from({0.3, 0.2}, 5.0);
  EXPECT_EQ(h.state(), state_at_bound);
  EXPECT_EQ(beyond.reward, at_bound.reward);

  h.env().set_strict_actions(true);
  EXPECT_THROW(h.step(5.0), UserError);
  EXPECT_NO_THROW(h.step(-2.0));
}

TEST(Pendulum, GravityKwarg) {
  EnvHarness light("Pendulum-v1", "{g: 9.81}");
  EnvHarness plain("Pendulum-v1");
  light.step_from({1.0, 0.0}, 0.0);
  plain.step_from({1.0, 0.0}, 0.0);
  EXPECT_NEAR(light.state()[1], 3 * 9.81 / 2 * std::sin(1.0) * 0.05, 1e-15);
  EXPECT_NEAR(plain.state()[1], 3 * 10.0 / 2 * std::sin(1.0) * 0.05, 1e-15);

  for (const char* bad : {"{g: -1}", "{g: 0}", "{g: heavy}"}) {
    try {
      EnvHarness h("Pendulum-v1", bad);
      FAIL() << bad << " accepted";
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find("'g'"), std::string::npos) << e.what();
    }
  }
  try {
    EnvHarness h("Pendulum-v1", "{gravity: 9.8}");
    FAIL() << "unknown key accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("gravity"), std::string::npos) << e.what();
  }
}

TEST(Pendulum, NeverTerminatesAndTruncatesAtTheTimeLimit) {
  EnvHarness h("Pendulum-v1");
  for (int t = 1; t < 200; ++t) {
    const StepResult r = h.step(t % 3 - 1.0);
    ASSERT_FALSE(r.terminated) << "step " << t;
    ASSERT_FALSE(r.truncated) << "step " << t;
  }
  const StepResult r = h.step(0.0);
  EXPECT_TRUE(r.truncated);
  EXPECT_FALSE(r.terminated);
  EXPECT_EQ(h.env().info().episode_length, 200);
}

TEST(Pendulum, SetStateChecksTheSize) {
  EnvHarness h("Pendulum-v1");
  try {
    h.set_state({1.0});
    FAIL() << "a 1-value state accepted";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("Pendulum-v1"), std::string::npos) << e.what();
  }
}

TEST(Pendulum, Conformance) {
  const auto report = check_env_conformance(test::registered("Pendulum-v1"));
  EXPECT_TRUE(report.ok()) << report.summary();
}

}  // namespace
}  // namespace rlzoo
