#include "envs/classic_control/acrobot.h"

#include <cmath>
#include <numbers>

#include "envs/classic_control/numerics.h"

namespace rlzoo {

namespace {

using classic_control::f32;
using classic_control::py_square;

constexpr double kPi = std::numbers::pi;
constexpr double kDt = 0.2;
constexpr double kMaxVel1 = 4 * kPi;
constexpr double kMaxVel2 = 9 * kPi;
constexpr double kTorques[3] = {-1.0, 0.0, 1.0};

// Link parameters. Products of them that Gymnasium recomputes on every call are exact here
// (powers of two times small integers), except the two gravity products, which are combined
// in Gymnasium's order.
constexpr double kM1 = 1.0, kM2 = 1.0, kL1 = 1.0, kLc1 = 0.5, kLc2 = 0.5, kI1 = 1.0, kI2 = 1.0, kG = 9.8;

// The augmented state [theta1, theta2, dtheta1, dtheta2, torque] that Gymnasium integrates.
using Aug = std::array<double, 5>;

// Time derivative of the augmented state ("book" dynamics); the torque stays constant.
Aug dsdt(const Aug& s) {
  const double a = s[4];
  const double theta1 = s[0], theta2 = s[1], dtheta1 = s[2], dtheta2 = s[3];
  const double cos_t2 = std::cos(theta2), sin_t2 = std::sin(theta2);
  const double d1 = kM1 * (kLc1 * kLc1) + kM2 * ((kL1 * kL1) + (kLc2 * kLc2) + 2 * kL1 * kLc2 * cos_t2) + kI1 + kI2;
  const double d2 = kM2 * ((kLc2 * kLc2) + kL1 * kLc2 * cos_t2) + kI2;
  const double phi2 = kM2 * kLc2 * kG * std::cos(theta1 + theta2 - kPi / 2.0);
  const double phi1 = -kM2 * kL1 * kLc2 * py_square(dtheta2) * sin_t2 -
                      2 * kM2 * kL1 * kLc2 * dtheta2 * dtheta1 * sin_t2 +
                      (kM1 * kLc1 + kM2 * kL1) * kG * std::cos(theta1 - kPi / 2) + phi2;
  const double ddtheta2 = (a + d2 / d1 * phi1 - kM2 * kL1 * kLc2 * py_square(dtheta1) * sin_t2 - phi2) /
                          (kM2 * (kLc2 * kLc2) + kI2 - py_square(d2) / d1);
  const double ddtheta1 = -(d2 * ddtheta2 + phi1) / d1;
  return {dtheta1, dtheta2, ddtheta1, ddtheta2, 0.0};
}

// One step of Gymnasium's rk4() helper over t = [0, dt].
Aug rk4_step(const Aug& y0) {
  constexpr double dt2 = kDt / 2.0;
  Aug y;
  const Aug k1 = dsdt(y0);
  for (std::size_t i = 0; i < 5; ++i) y[i] = y0[i] + dt2 * k1[i];
  const Aug k2 = dsdt(y);
  for (std::size_t i = 0; i < 5; ++i) y[i] = y0[i] + dt2 * k2[i];
  const Aug k3 = dsdt(y);
  for (std::size_t i = 0; i < 5; ++i) y[i] = y0[i] + kDt * k3[i];
  const Aug k4 = dsdt(y);
  for (std::size_t i = 0; i < 5; ++i) y[i] = y0[i] + kDt / 6.0 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
  return y;
}

double wrap(double x, double lo, double hi) {
  const double diff = hi - lo;
  while (x > hi) x = x - diff;
  while (x < lo) x = x + diff;
  return x;
}

EnvSpec make_spec() {
  const std::vector<double> high{1.0, 1.0, 1.0, 1.0, f32(kMaxVel1), f32(kMaxVel2)};
  std::vector<double> low(high.size());
  for (std::size_t i = 0; i < high.size(); ++i) low[i] = -high[i];
  EnvSpec spec;
  spec.id = AcrobotEnv::kId;
  spec.observation_space = Space::box(low, high, {6});
  spec.action_space = Space::discrete(3);
  return spec;
}

}  // namespace

AcrobotEnv::AcrobotEnv(AcrobotConfig) : Env(make_spec()) {}

std::vector<double> AcrobotEnv::get_state() const { return {state_.begin(), state_.end()}; }

void AcrobotEnv::set_state(std::span<const double> state, Bytes obs) {
  classic_control::check_state_size(id(), state, 4, "[theta1, theta2, dtheta1, dtheta2]");
  std::copy(state.begin(), state.end(), state_.begin());
  write_obs(obs);
}

void AcrobotEnv::write_obs(Bytes obs) const {
  // Computed in float64 and rounded once. (For a float32 reset state Gymnasium takes float32
  // cos/sin; on such small angles that gives the same float32 values.)
  auto o = as_span<float>(obs);
  o[0] = static_cast<float>(std::cos(state_[0]));
  o[1] = static_cast<float>(std::sin(state_[0]));
  o[2] = static_cast<float>(std::cos(state_[1]));
  o[3] = static_cast<float>(std::sin(state_[1]));
  o[4] = static_cast<float>(state_[2]);
  o[5] = static_cast<float>(state_[3]);
}

void AcrobotEnv::do_reset(std::optional<std::uint64_t>, Bytes obs) {
  for (double& v : state_) v = static_cast<float>(rng().uniform(-0.1, 0.1));
  write_obs(obs);
}

StepResult AcrobotEnv::do_step(ConstBytes action, Bytes obs) {
  const auto a = static_cast<std::size_t>(as_span<std::int64_t>(action)[0]);
  const Aug ns = rk4_step({state_[0], state_[1], state_[2], state_[3], kTorques[a]});
  state_[0] = wrap(ns[0], -kPi, kPi);
  state_[1] = wrap(ns[1], -kPi, kPi);
  state_[2] = classic_control::clip(ns[2], -kMaxVel1, kMaxVel1);
  state_[3] = classic_control::clip(ns[3], -kMaxVel2, kMaxVel2);

  StepResult r;
  r.terminated = -std::cos(state_[0]) - std::cos(state_[1] + state_[0]) > 1.0;
  r.reward = r.terminated ? 0.0 : -1.0;
  write_obs(obs);
  return r;
}

}  // namespace rlzoo
