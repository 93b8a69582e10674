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
using classic_control::Double2;
using classic_control::lanes_below;
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

namespace {

// One explicit-Euler step of [x, x_dot, theta, theta_dot] under `force`, written once for one
// env (V = double) and for two side by side (V = Double2, each constant broadcast to both
// lanes): the same IEEE operations in the same order either way, so both give Gymnasium's
// float64 numbers bit for bit.
template <class V>
[[gnu::always_inline]] inline void advance(V& x, V& x_dot, V& theta, V& theta_dot, V force, V costheta, V sintheta) {
  const V temp = (force + kPoleMassLength * py_square(theta_dot) * sintheta) / kTotalMass;
  const V thetaacc =
      (kGravity * sintheta - costheta * temp) / (kLength * (4.0 / 3.0 - kMassPole * py_square(costheta) / kTotalMass));
  const V xacc = temp - kPoleMassLength * thetaacc * costheta / kTotalMass;
  // Explicit Euler: every update reads the old values.
  x = x + kTau * x_dot;
  x_dot = x_dot + kTau * xacc;
  theta = theta + kTau * theta_dot;
  theta_dot = theta_dot + kTau * thetaacc;
}

double force_of(ConstBytes action) {
  std::int64_t a;  // Env::step checked the action's size and range
  std::memcpy(&a, action.data(), sizeof a);
  return a == 1 ? kForceMag : -kForceMag;
}

bool out_of_bounds(double x, double theta) {
  return x < -kXThreshold || x > kXThreshold || theta < -kThetaThreshold || theta > kThetaThreshold;
}

}  // namespace

[[gnu::always_inline]] inline StepResult CartPoleEnv::result_after_step(bool terminated, Bytes obs) const {
  StepResult r;
  r.terminated = terminated;
  r.reward = r.terminated ? end_reward_ : step_reward_;  // always finite
  // The observation is checked as it is written (a state set from outside can overflow float32
  // or hold a NaN); when it is not finite, Env::step checks again and names the element.
  r.checked_finite = store_float32s_checked(state_.data(), reinterpret_cast<float*>(obs.data()), 4);
  return r;
}

StepResult CartPoleEnv::do_step(ConstBytes action, Bytes obs) {
  auto& [x, x_dot, theta, theta_dot] = state_;
  const double costheta = std::cos(theta);
  const double sintheta = std::sin(theta);
  advance(x, x_dot, theta, theta_dot, force_of(action), costheta, sintheta);
  return result_after_step(out_of_bounds(x, theta), obs);
}

std::array<StepResult, 2> CartPoleEnv::step_pair(CartPoleEnv& a, CartPoleEnv& b, ConstBytes a_action,
                                                 ConstBytes b_action, Bytes a_obs, Bytes b_obs) noexcept {
  // The libm calls first: every SSE register is free across a call, so state loaded before them
  // would be spilled to the stack and read back.
  const Double2 costheta{std::cos(a.state_[2]), std::cos(b.state_[2])};
  const Double2 sintheta{std::sin(a.state_[2]), std::sin(b.state_[2])};
  Double2 x{a.state_[0], b.state_[0]}, x_dot{a.state_[1], b.state_[1]};
  Double2 theta{a.state_[2], b.state_[2]}, theta_dot{a.state_[3], b.state_[3]};
  advance(x, x_dot, theta, theta_dot, Double2{force_of(a_action), force_of(b_action)}, costheta, sintheta);
  // out_of_bounds of each lane (bit 0: a, bit 1: b).
  const Double2 x_limit{kXThreshold, kXThreshold}, theta_limit{kThetaThreshold, kThetaThreshold};
  const int ended = lanes_below(x, -x_limit) | lanes_below(x_limit, x) |
                    lanes_below(theta, -theta_limit) | lanes_below(theta_limit, theta);
  a.state_ = {x[0], x_dot[0], theta[0], theta_dot[0]};
  b.state_ = {x[1], x_dot[1], theta[1], theta_dot[1]};
  return {a.result_after_step((ended & 1) != 0, a_obs), b.result_after_step((ended & 2) != 0, b_obs)};
}

// flatten: do_step and step_pair inline into the loop (GCC would otherwise call them there).
[[gnu::flatten]] void CartPoleEnv::step_run(StepRun& run) {
  step_run_paired<CartPoleEnv>(
      run, [](CartPoleEnv& e, ConstBytes a, Bytes o) { return e.CartPoleEnv::do_step(a, o); },
      [](CartPoleEnv& a, CartPoleEnv& b, ConstBytes aa, ConstBytes ba, Bytes ao, Bytes bo) noexcept {
        return step_pair(a, b, aa, ba, ao, bo);
      });
}

}  // namespace rlzoo
