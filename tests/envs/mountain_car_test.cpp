#include <gtest/gtest.h>

#include <cmath>

#include "core/config/context.h"
#include "core/env/conformance.h"
#include "tests/envs/env_test_util.h"

namespace rlzoo {
namespace {

using test::EnvHarness;
using test::f32;

// The slope's contribution to the velocity change, as the env adds it.
double slope(double p) { return std::cos(3 * p) * (-0.0025); }

TEST(MountainCar, SpacesAndRegistration) {
  EnvHarness h("MountainCar-v0");
  const Space& os = h.env().observation_space();
  EXPECT_EQ(os.dtype(), DType::Float32);
  EXPECT_EQ(os.low(), (std::vector<double>{f32(-1.2), f32(-0.07)}));
  EXPECT_EQ(os.high(), (std::vector<double>{f32(0.6), f32(0.07)}));
  EXPECT_EQ(h.env().action_space(), Space::discrete(3));
  EXPECT_EQ(h.env().max_episode_steps(), 200);
  EXPECT_EQ(h.env().spec().reward_threshold, -110.0);
}

TEST(MountainCar, OneStepFollowsTheEquations) {
  EnvHarness h("MountainCar-v0");
  for (std::int64_t a = 0; a < 3; ++a) {
    const StepResult r = h.step_from({-0.5, 0.01}, a);
    const double v = 0.01 + (static_cast<double>(a - 1) * 0.001 + slope(-0.5));
    EXPECT_EQ(h.state(), (std::vector<double>{-0.5 + v, v})) << "action " << a;
    test::expect_obs(h.obs(), h.state());
    EXPECT_EQ(r.reward, -1.0);
    EXPECT_FALSE(r.terminated);
  }
}

TEST(MountainCar, ResetDrawsFromTheSeededRange) {
  EnvHarness h("MountainCar-v0");
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    h.reset(seed);
    EXPECT_GE(h.state()[0], -0.6);
    EXPECT_LT(h.state()[0], -0.4);
    EXPECT_EQ(h.state()[1], 0.0);
  }
}

TEST(MountainCar, SpeedIsClipped) {
  EnvHarness h("MountainCar-v0");
  h.step_from({-0.52, 0.07}, 2);  // cos(3p) is about 0 here: the push alone passes the limit
  EXPECT_EQ(h.state()[1], 0.07);
  EXPECT_EQ(h.state()[0], -0.52 + 0.07);
  h.step_from({-0.4, -0.07}, 0);
  EXPECT_EQ(h.state()[1], -0.07);
  // Just inside the limit nothing is clipped.
  h.step_from({-0.52, 0.0699}, 1);
  EXPECT_EQ(h.state()[1], 0.0699 + (0.0 + slope(-0.52)));
}

TEST(MountainCar, LeftWallStopsTheCar) {
  EnvHarness h("MountainCar-v0");
  h.step_from({-1.2, -0.07}, 0);
  EXPECT_EQ(h.state(), (std::vector<double>{-1.2, 0.0}));
  h.step_from({-1.19, -0.05}, 1);
  EXPECT_EQ(h.state(), (std::vector<double>{-1.2, 0.0}));
  // At the wall but moving right: the velocity is kept.
  h.step_from({-1.2, 0.0}, 2);
  EXPECT_GT(h.state()[1], 0.0);
  EXPECT_GT(h.state()[0], -1.2);
}

// With action 1 and v = -slope(p) the new velocity is exactly 0 and the position stays put,
// so both thresholds (p >= 0.5, v >= goal_velocity) can be hit exactly.
TEST(MountainCar, TerminationThresholds) {
  EnvHarness h("MountainCar-v0");
  struct Case {
    double p, extra_v;
    bool terminated;
  };
  const Case cases[] = {
      {0.5, 0.0, true},                        // p == 0.5, v == 0
      {std::nextafter(0.5, 0.0), 0.0, false},  // just short of the flag
      {0.55, 0.0, true},                       // v == 0 is enough
      {0.55, -1e-9, false},                    // rolling back
      {0.55, 1e-9, true},
  };
  for (const Case& c : cases) {
    h.reset();
    const StepResult r = h.step_from({c.p, -slope(c.p) + c.extra_v}, 1);
    EXPECT_EQ(r.terminated, c.terminated) << "p " << c.p << " extra v " << c.extra_v;
    EXPECT_EQ(r.reward, -1.0);
    if (c.extra_v == 0.0) {
      EXPECT_EQ(h.state(), (std::vector<double>{c.p, 0.0}));
    }
  }
}

TEST(MountainCar, GoalVelocityKwarg) {
  EnvHarness strict("MountainCar-v0", "{goal_velocity: 0.01}");
  EnvHarness plain("MountainCar-v0");
  const std::vector<double> s{0.55, 0.005 - slope(0.55)};
  EXPECT_FALSE(strict.step_from(s, 1).terminated);
  EXPECT_TRUE(plain.step_from(s, 1).terminated);
  EXPECT_EQ(strict.state(), plain.state());
  try {
    EnvHarness h("MountainCar-v0", "{goal_velocity: fast}");
    FAIL() << "a string accepted as a number";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("goal_velocity"), std::string::npos) << e.what();
  }
  try {
    EnvHarness h("MountainCar-v0", "{goal_speed: 0.1}");
    FAIL() << "unknown key accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("goal_speed"), std::string::npos) << e.what();
  }
}

TEST(MountainCar, TruncatedExactlyAtTheTimeLimit) {
  // Coasting from the valley never reaches the flag.
  EnvHarness h("MountainCar-v0");
  for (int t = 1; t < 200; ++t) ASSERT_FALSE(h.step(1).done()) << "step " << t;
  StepResult r = h.step(1);
  EXPECT_TRUE(r.truncated);
  EXPECT_FALSE(r.terminated);
  EXPECT_EQ(h.env().info().episode_length, 200);
  EXPECT_EQ(h.env().info().episode_return, -200.0);

  h.reset();
  for (int t = 1; t < 200; ++t) ASSERT_FALSE(h.step(1).done());
  r = h.step_from({0.5, -slope(0.5)}, 1);
  EXPECT_TRUE(r.terminated);
  EXPECT_TRUE(r.truncated);
}

TEST(MountainCar, InvalidActionNamesEnvAndAction) {
  EnvHarness h("MountainCar-v0");
  try {
    h.step(3);
    FAIL() << "action 3 was accepted";
  } catch (const UserError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("MountainCar-v0"), std::string::npos) << msg;
    EXPECT_NE(msg.find("invalid action 3"), std::string::npos) << msg;
  }
}

TEST(MountainCar, Conformance) {
  const auto report = check_env_conformance(test::registered("MountainCar-v0"));
  EXPECT_TRUE(report.ok()) << report.summary();
}

}  // namespace
}  // namespace rlzoo
