#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <numbers>

#include "core/config/context.h"
#include "core/env/conformance.h"
#include "tests/envs/env_test_util.h"

namespace rlzoo {
namespace {

using test::EnvHarness;

constexpr double kPi = std::numbers::pi;
using State5 = std::array<double, 5>;

// The "book" equations of motion with m = l = 1, lc = 0.5, I = 1, g = 9.8, written out.
State5 derivatives(const State5& s) {
  const double t1 = s[0], t2 = s[1], w1 = s[2], w2 = s[3], torque = s[4];
  const double d1 = 0.25 + (1.0 + 0.25 + std::cos(t2)) + 2.0;
  const double d2 = (0.25 + 0.5 * std::cos(t2)) + 1.0;
  const double phi2 = 0.5 * 9.8 * std::cos(t1 + t2 - kPi / 2);
  const double phi1 =
      -0.5 * w2 * w2 * std::sin(t2) - w2 * w1 * std::sin(t2) + 1.5 * 9.8 * std::cos(t1 - kPi / 2) + phi2;
  const double dd2 = (torque + d2 / d1 * phi1 - 0.5 * w1 * w1 * std::sin(t2) - phi2) / (1.25 - d2 * d2 / d1);
  const double dd1 = -(d2 * dd2 + phi1) / d1;
  return {w1, w2, dd1, dd2, 0.0};
}

// One classic RK4 step of 0.2 s, without wrapping or clipping.
std::array<double, 4> rk4(const std::vector<double>& s, double torque) {
  const State5 y{s[0], s[1], s[2], s[3], torque};
  auto add = [](const State5& a, double h, const State5& k) {
    State5 r;
    for (int i = 0; i < 5; ++i) r[i] = a[i] + h * k[i];
    return r;
  };
  const State5 k1 = derivatives(y);
  const State5 k2 = derivatives(add(y, 0.1, k1));
  const State5 k3 = derivatives(add(y, 0.1, k2));
  const State5 k4 = derivatives(add(y, 0.2, k3));
  std::array<double, 4> out;
  for (int i = 0; i < 4; ++i) out[i] = y[i] + 0.2 / 6 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
  return out;
}

double tip_height(const std::vector<double>& s) { return -std::cos(s[0]) - std::cos(s[1] + s[0]); }

TEST(Acrobot, SpacesAndRegistration) {
  EnvHarness h("Acrobot-v1");
  const Space& os = h.env().observation_space();
  EXPECT_EQ(os.dtype(), DType::Float32);
  EXPECT_EQ(os.high(), (std::vector<double>{1, 1, 1, 1, 12.566370964050293, 28.274333953857422}));
  EXPECT_EQ(os.low(), (std::vector<double>{-1, -1, -1, -1, -12.566370964050293, -28.274333953857422}));
  EXPECT_EQ(h.env().action_space(), Space::discrete(3));
  EXPECT_EQ(h.env().max_episode_steps(), 500);
  EXPECT_EQ(h.env().spec().reward_threshold, -100.0);
}

TEST(Acrobot, OneStepFollowsTheEquations) {
  EnvHarness h("Acrobot-v1");
  const std::vector<double> s{0.3, -0.5, 1.0, -2.0};
  const double torques[] = {-1.0, 0.0, 1.0};
  for (std::int64_t a = 0; a < 3; ++a) {
    const StepResult r = h.step_from(s, a);
    const auto want = rk4(s, torques[a]);
    const auto got = h.state();
    for (int i = 0; i < 4; ++i) EXPECT_NEAR(got[i], want[i], 1e-12) << "action " << a << " state[" << i << "]";
    test::expect_obs(h.obs(), {std::cos(got[0]), std::sin(got[0]), std::cos(got[1]), std::sin(got[1]), got[2], got[3]});
    EXPECT_EQ(r.reward, -1.0);
    EXPECT_FALSE(r.terminated);
  }
}

TEST(Acrobot, ResetStateIsFloat32InRange) {
  EnvHarness h("Acrobot-v1");
  h.reset(3);
  for (double v : h.state()) {
    EXPECT_EQ(v, static_cast<double>(static_cast<float>(v)));
    EXPECT_GE(v, -0.1);
    EXPECT_LE(v, 0.1);
  }
}

TEST(Acrobot, AnglesWrapIntoMinusPiPi) {
  EnvHarness h("Acrobot-v1");
  const std::vector<double> s{3.1, -3.1, 2.0, -3.0};
  h.step_from(s, 1);
  const auto raw = rk4(s, 0.0);
  ASSERT_GT(raw[0], kPi);
  ASSERT_LT(raw[1], -kPi);
  EXPECT_NEAR(h.state()[0], raw[0] - 2 * kPi, 1e-12);
  EXPECT_NEAR(h.state()[1], raw[1] + 2 * kPi, 1e-12);
  // Several turns away: wrapped by repeated 2 pi steps.
  h.step_from({7 * kPi, -9 * kPi, 0, 0}, 1);
  EXPECT_GE(h.state()[0], -kPi);
  EXPECT_LE(h.state()[0], kPi);
  EXPECT_GE(h.state()[1], -kPi);
  EXPECT_LE(h.state()[1], kPi);
}

TEST(Acrobot, VelocitiesAreClipped) {
  EnvHarness h("Acrobot-v1");
  for (const double sign : {1.0, -1.0}) {
    const std::vector<double> s{0, 0, sign * 13, sign * 29};
    const auto raw = rk4(s, 0.0);
    ASSERT_GT(sign * raw[2], 4 * kPi);
    ASSERT_GT(sign * raw[3], 9 * kPi);
    h.reset();
    h.step_from(s, 1);
    EXPECT_EQ(h.state()[2], sign * 4 * kPi);
    EXPECT_EQ(h.state()[3], sign * 9 * kPi);
    EXPECT_TRUE(h.env().observation_space().contains(std::as_bytes(std::span(h.obs()))));
  }
}

// Bisects the start angle (links straight, at rest) down to adjacent doubles on either side of
// the goal line: the step just inside does not terminate, the one just outside does, and the
// heights of the resulting states lie on the matching side of 1.0.
TEST(Acrobot, TerminationAtTheGoalLine) {
  EnvHarness h("Acrobot-v1");
  auto terminated_from = [&](double theta1) {
    h.reset();
    return h.step_from({theta1, 0, 0, 0}, 1).terminated;
  };
  double inside = 2.0, outside = 2.4;
  ASSERT_FALSE(terminated_from(inside));
  ASSERT_TRUE(terminated_from(outside));
  while (std::nextafter(inside, outside) != outside) {
    const double mid = inside + (outside - inside) / 2;
    (terminated_from(mid) ? outside : inside) = mid;
  }
  h.reset();
  StepResult r = h.step_from({inside, 0, 0, 0}, 1);
  EXPECT_FALSE(r.terminated);
  EXPECT_EQ(r.reward, -1.0);
  EXPECT_LE(tip_height(h.state()), 1.0);
  h.reset();
  r = h.step_from({outside, 0, 0, 0}, 1);
  EXPECT_TRUE(r.terminated);
  EXPECT_EQ(r.reward, 0.0);
  EXPECT_GT(tip_height(h.state()), 1.0);
}

TEST(Acrobot, TruncatedExactlyAtTheTimeLimit) {
  EnvHarness h("Acrobot-v1");
  for (int t = 1; t < 500; ++t) ASSERT_FALSE(h.step_from({0, 0, 0, 0}, 1).done()) << "step " << t;
  StepResult r = h.step_from({0, 0, 0, 0}, 1);
  EXPECT_TRUE(r.truncated);
  EXPECT_FALSE(r.terminated);
  EXPECT_EQ(h.env().info().episode_return, -500.0);

  h.reset();
  for (int t = 1; t < 500; ++t) ASSERT_FALSE(h.step_from({0, 0, 0, 0}, 1).done());
  r = h.step_from({kPi, 0, 0, 0}, 1);  // pointing straight up
  EXPECT_TRUE(r.terminated);
  EXPECT_TRUE(r.truncated);
  EXPECT_EQ(r.reward, 0.0);
}

TEST(Acrobot, InvalidActionNamesEnvAndAction) {
  EnvHarness h("Acrobot-v1");
  try {
    h.step(3);
    FAIL() << "action 3 was accepted";
  } catch (const UserError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("Acrobot-v1"), std::string::npos) << msg;
    EXPECT_NE(msg.find("invalid action 3"), std::string::npos) << msg;
  }
}

TEST(Acrobot, TakesNoKwargs) {
  EXPECT_NO_THROW(EnvHarness("Acrobot-v1", "{}"));
  try {
    EnvHarness h("Acrobot-v1", "{torque_noise_max: 0.1}");
    FAIL() << "unknown key accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("torque_noise_max"), std::string::npos) << e.what();
  }
}

TEST(Acrobot, Conformance) {
  const auto report = check_env_conformance(test::registered("Acrobot-v1"));
  EXPECT_TRUE(report.ok()) << report.summary();
}

}  // namespace
}  // namespace rlzoo
