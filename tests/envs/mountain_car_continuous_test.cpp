#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/config/context.h"
#include "core/env/conformance.h"
#include "tests/envs/env_test_util.h"

namespace rlzoo {
namespace {

using test::EnvHarness;
using test::f32;

// The slope term as the env subtracts it.
double slope(double p) { return 0.0025 * std::cos(3 * p); }

TEST(MountainCarContinuous, SpacesAndRegistration) {
  EnvHarness h("MountainCarContinuous-v0");
  const Space& os = h.env().observation_space();
  EXPECT_EQ(os.dtype(), DType::Float32);
  EXPECT_EQ(os.low(), (std::vector<double>{f32(-1.2), f32(-0.07)}));
  EXPECT_EQ(os.high(), (std::vector<double>{f32(0.6), f32(0.07)}));
  EXPECT_EQ(h.env().action_space(), Space::box(-1.0, 1.0, {1}, DType::Float32));
  EXPECT_EQ(h.env().max_episode_steps(), 999);
  EXPECT_EQ(h.env().spec().reward_threshold, 90.0);
}

TEST(MountainCarContinuous, OneStepFollowsTheEquations) {
  EnvHarness h("MountainCarContinuous-v0");
  const double a = 0.5;
  const StepResult r = h.step_from({-0.5, 0.01}, a);
  const double v = 0.01 + (a * 0.0015 - slope(-0.5));
  // Computed in float64, stored as float32.
  EXPECT_EQ(h.state(), (std::vector<double>{f32(-0.5 + v), f32(v)}));
  test::expect_obs(h.obs(), h.state());
  EXPECT_EQ(r.reward, -(a * a * 0.1));
  EXPECT_FALSE(r.terminated);
}

TEST(MountainCarContinuous, OutOfBoundActionsClipTheForceButNotThePenalty) {
  EnvHarness h("MountainCarContinuous-v0");
  for (const double a : {3.0, -2.5}) {
    const double bound = a > 0 ? 1.0 : -1.0;
    const StepResult clipped = h.step_from({-0.5, 0.01}, bound);
    const auto state_at_bound = h.state();
    const StepResult r = h.step_from({-0.5, 0.01}, a);
    EXPECT_EQ(h.state(), state_at_bound) << "action " << a;
    EXPECT_EQ(r.reward, -(a * a * 0.1)) << "action " << a;
    EXPECT_NE(r.reward, clipped.reward);
  }
}

TEST(MountainCarContinuous, StrictModeRejectsOutOfBoundActions) {
  EnvHarness h("MountainCarContinuous-v0");
  h.env().set_strict_actions(true);
  try {
    h.step(1.5);
    FAIL() << "out-of-bound action accepted in strict mode";
  } catch (const UserError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("MountainCarContinuous-v0"), std::string::npos) << msg;
    EXPECT_NE(msg.find("outside the bounds"), std::string::npos) << msg;
  }
  EXPECT_NO_THROW(h.step(1.0));  // on the bound is inside
  EXPECT_NO_THROW(h.step(-1.0));
}

TEST(MountainCarContinuous, NonFiniteActionIsRejected) {
  EnvHarness h("MountainCarContinuous-v0");
  EXPECT_THROW(h.step(std::numeric_limits<double>::quiet_NaN()), UserError);
  EXPECT_THROW(h.step(std::numeric_limits<double>::infinity()), UserError);
}

TEST(MountainCarContinuous, SpeedClipAndLeftWall) {
  EnvHarness h("MountainCarContinuous-v0");
  h.step_from({-0.52, 0.07}, 1.0);
  EXPECT_EQ(h.state()[1], f32(0.07));
  h.step_from({-0.4, -0.07}, -1.0);
  EXPECT_EQ(h.state()[1], f32(-0.07));
  h.step_from({-1.2, -0.07}, -1.0);
  EXPECT_EQ(h.state(), (std::vector<double>{f32(-1.2), 0.0}));
  // At the wall the slope outpulls the strongest push to the left: the car rolls back right.
  h.step(-1.0);
  EXPECT_GT(h.state()[1], 0.0);
  EXPECT_GT(h.state()[0], -1.2);
}

// With action 0 and v = slope(p) the new velocity is exactly 0 and the position stays put.
// Termination is decided on the float64 values, before the float32 store: 0.45 terminates
// although it is stored as float32(0.45) < 0.45, and the double just below 0.45, stored as
// the same float32, does not.
TEST(MountainCarContinuous, TerminationIsTestedBeforeTheFloat32Store) {
  EnvHarness h("MountainCarContinuous-v0");
  ASSERT_LT(f32(0.45), 0.45);
  StepResult r = h.step_from({0.45, slope(0.45)}, 0.0);
  EXPECT_TRUE(r.terminated);
  EXPECT_EQ(r.reward, 100.0);
  EXPECT_EQ(h.state(), (std::vector<double>{f32(0.45), 0.0}));

  const double below = std::nextafter(0.45, 0.0);
  ASSERT_EQ(f32(below), f32(0.45));
  h.reset();
  r = h.step_from({below, slope(below)}, 0.0);
  EXPECT_FALSE(r.terminated);
  EXPECT_EQ(r.reward, 0.0);
  EXPECT_EQ(h.state(), (std::vector<double>{f32(0.45), 0.0}));
}

TEST(MountainCarContinuous, VelocityThreshold) {
  EnvHarness h("MountainCarContinuous-v0");
  EXPECT_TRUE(h.step_from({0.5, slope(0.5)}, 0.0).terminated);  // v == 0
  h.reset();
  EXPECT_FALSE(h.step_from({0.5, slope(0.5) - 1e-9}, 0.0).terminated);
  h.reset();
  // The goal step's reward still pays the (unclipped) action penalty.
  const StepResult r = h.step_from({0.5, 0.01}, 2.0);
  EXPECT_TRUE(r.terminated);
  EXPECT_EQ(r.reward, 100.0 - 4.0 * 0.1);
}

TEST(MountainCarContinuous, GoalVelocityKwarg) {
  EnvHarness strict("MountainCarContinuous-v0", "{goal_velocity: 0.01}");
  EnvHarness plain("MountainCarContinuous-v0");
  const std::vector<double> s{0.5, 0.005 + slope(0.5)};
  EXPECT_FALSE(strict.step_from(s, 0.0).terminated);
  EXPECT_TRUE(plain.step_from(s, 0.0).terminated);
  try {
    EnvHarness h("MountainCarContinuous-v0", "{goal_velocity: [1]}");
    FAIL() << "a list accepted as a number";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("goal_velocity"), std::string::npos) << e.what();
  }
}

TEST(MountainCarContinuous, TruncatedExactlyAtTheTimeLimit) {
  EnvHarness h("MountainCarContinuous-v0");
  for (int t = 1; t < 999; ++t) ASSERT_FALSE(h.step(0.0).done()) << "step " << t;
  StepResult r = h.step(0.0);
  EXPECT_TRUE(r.truncated);
  EXPECT_FALSE(r.terminated);

  h.reset();
  for (int t = 1; t < 999; ++t) ASSERT_FALSE(h.step(0.0).done());
  r = h.step_from({0.45, slope(0.45)}, 0.0);
  EXPECT_TRUE(r.terminated);
  EXPECT_TRUE(r.truncated);
  EXPECT_EQ(h.env().info().episode_return, 100.0);
}

TEST(MountainCarContinuous, Conformance) {
  const auto report = check_env_conformance(test::registered("MountainCarContinuous-v0"));
  EXPECT_TRUE(report.ok()) << report.summary();
}

}  // namespace
}  // namespace rlzoo
