#include "envs/classic_control/pendulum.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "envs/classic_control/numerics.h"

namespace rlzoo {

namespace {

using classic_control::py_square;

constexpr double kPi = std::numbers::pi;
constexpr double kMaxSpeed = 8.0;
constexpr double kMaxTorque = 2.0;
constexpr double kDt = 0.05;
constexpr double kMass = 1.0;
constexpr double kLength = 1.0;

double angle_normalize(double x) { return classic_control::py_mod(x + kPi, 2 * kPi) - kPi; }

EnvSpec make_spec() {
  EnvSpec spec;
  spec.id = PendulumEnv::kId;
  spec.observation_space = Space::box({-1.0, -1.0, -kMaxSpeed}, {1.0, 1.0, kMaxSpeed}, {3});
  spec.action_space = Space::box(-kMaxTorque, kMaxTorque, {1});
  return spec;
}

}  // namespace

PendulumEnv::PendulumEnv(PendulumConfig config) : Env(make_spec()), config_(config) {}

std::vector<double> PendulumEnv::get_state() const { return {state_.begin(), state_.end()}; }

void PendulumEnv::set_state(std::span<const double> state, Bytes obs) {
  classic_control::check_state_size(id(), state, 2, "[theta, theta_dot]");
  std::copy(state.begin(), state.end(), state_.begin());
  write_obs(obs);
}

void PendulumEnv::write_obs(Bytes obs) const {
  auto o = as_span<float>(obs);
  o[0] = static_cast<float>(std::cos(state_[0]));
  o[1] = static_cast<float>(std::sin(state_[0]));
  o[2] = static_cast<float>(state_[1]);
}

void PendulumEnv::do_reset(std::optional<std::uint64_t>, Bytes obs) {
  state_[0] = rng().uniform(-kPi, kPi);
  state_[1] = rng().uniform(-1.0, 1.0);
  write_obs(obs);
}

StepResult PendulumEnv::do_step(ConstBytes action, Bytes obs) {
  const double th = state_[0], thdot = state_[1];
  const double g = config_.g;
  // np.clip keeps the float32 dtype; every operation on u is then float64 (NumPy 1.x promotes a
  // float32 scalar combined with a Python number), so u**2 is exact.
  const float u =
      std::clamp(as_span<float>(action)[0], static_cast<float>(-kMaxTorque), static_cast<float>(kMaxTorque));
  const double costs = py_square(angle_normalize(th)) + 0.1 * py_square(thdot) + 0.001 * py_square(u);

  double newthdot = thdot + (3 * g / (2 * kLength) * std::sin(th) + 3.0 / (kMass * (kLength * kLength)) * u) * kDt;
  newthdot = classic_control::clip(newthdot, -kMaxSpeed, kMaxSpeed);
  const double newth = th + newthdot * kDt;
  state_ = {newth, newthdot};

  StepResult r;
  r.reward = -costs;
  write_obs(obs);
  return r;
}

}  // namespace rlzoo
