#include "envs/classic_control/cartpole.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <numbers>

#include "core/common/finite_floats.h"
#include "envs/classic_control/numerics.h"

namespace rlzoo {

namespace {

using classic_control::f32;
using classic_control::py_square;

// Gymnasium's constants, combined in the same order so that they round the same way.
constexpr double kGravity = 9.8;
constexpr double kMassCart = 1.0;
constexpr double kMassPole = 0.1;
constexpr double kTotalMass = kMassPole + kMassCart;
constexpr double kLength = 0.5;  // half the pole's length
constexpr double kPoleMassLength = kMassPole * kLength;
constexpr double kForceMag = 10.0;
constexpr double kTau = 0.02;
constexpr double kThetaThreshold = 12 * 2 * std::numbers::pi / 360;
constexpr double kXThreshold = 2.4;

EnvSpec make_spec() {
  constexpr double kF32Max = std::numeric_limits<float>::max();
  const std::vector<double> high{f32(kXThreshold * 2), kF32Max, f32(kThetaThreshold * 2), kF32Max};
  const std::vector<double> low{-high[0], -high[1], -high[2], -high[3]};
  EnvSpec spec;
  spec.id = CartPoleEnv::kId;
  spec.observation_space = Space::box(low, high, {4});
  spec.action_space = Space::discrete(2);
  return spec;
}

}  // namespace

CartPoleEnv::CartPoleEnv(CartPoleConfig config)
    : Env(make_spec()),
      step_reward_(config.sutton_barto_reward ? 0.0 : 1.0),
      end_reward_(config.sutton_barto_reward ? -1.0 : 1.0) {}

// Inlined into do_step, without a span's size check (Env::step checked the buffer's size):
// the call and the check were a tenth of a step's instructions.
[[gnu::always_inline]] inline void CartPoleEnv::write_obs(Bytes obs) const {
  float* o = reinterpret_cast<float*>(obs.data());
  for (std::size_t i = 0; i < 4; ++i) o[i] = static_cast<float>(state_[i]);
}

std::vector<double> CartPoleEnv::get_state() const { return {state_.begin(), state_.end()}; }

void CartPoleEnv::set_state(std::span<const double> state, Bytes obs) {
  classic_control::check_state_size(id(), state, 4, "[x, x_dot, theta, theta_dot]");
  std::copy(state.begin(), state.end(), state_.begin());
  write_obs(obs);
}

void CartPoleEnv::do_reset(std::optional<std::uint64_t>, Bytes obs) {
  for (double& v : state_) v = rng().uniform(-0.05, 0.05);
  write_obs(obs);
}

StepResult CartPoleEnv::do_step(ConstBytes action, Bytes obs) {
  std::int64_t a;  // Env::step checked the action's size and range
  std::memcpy(&a, action.data(), sizeof a);
  auto& [x, x_dot, theta, theta_dot] = state_;
  const double force = a == 1 ? kForceMag : -kForceMag;
  const double costheta = std::cos(theta);
  const double sintheta = std::sin(theta);

  const double temp = (force + kPoleMassLength * py_square(theta_dot) * sintheta) / kTotalMass;
  const double thetaacc =
      (kGravity * sintheta - costheta * temp) / (kLength * (4.0 / 3.0 - kMassPole * py_square(costheta) / kTotalMass));
  const double xacc = temp - kPoleMassLength * thetaacc * costheta / kTotalMass;

  // Explicit Euler: every update reads the old values.
  x = x + kTau * x_dot;
  x_dot = x_dot + kTau * xacc;
  theta = theta + kTau * theta_dot;
  theta_dot = theta_dot + kTau * thetaacc;

  StepResult r;
  r.terminated = x < -kXThreshold || x > kXThreshold || theta < -kThetaThreshold || theta > kThetaThreshold;
  r.reward = r.terminated ? end_reward_ : step_reward_;  // always finite
  // The observation is checked as it is written (a state set from outside can overflow float32
  // or hold a NaN); when it is not finite, Env::step checks again and names the element.
  r.checked_finite = store_float32s_checked(state_.data(), reinterpret_cast<float*>(obs.data()), 4);
  return r;
}

// flatten: do_step inlines into the loop (GCC would otherwise call it there).
[[gnu::flatten]] void CartPoleEnv::step_run(StepRun& run) {
  step_run_with<CartPoleEnv>(run, [](CartPoleEnv& e, ConstBytes a, Bytes o) { return e.CartPoleEnv::do_step(a, o); });
}

}  // namespace rlzoo
