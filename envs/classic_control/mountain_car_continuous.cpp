#include "envs/classic_control/mountain_car_continuous.h"

#include <cmath>

#include "envs/classic_control/numerics.h"

namespace rlzoo {

namespace {

using classic_control::f32;

constexpr double kMinAction = -1.0;
constexpr double kMaxAction = 1.0;
constexpr double kMinPosition = -1.2;
constexpr double kMaxPosition = 0.6;
constexpr double kMaxSpeed = 0.07;
constexpr double kGoalPosition = 0.45;
constexpr double kPower = 0.0015;

EnvSpec make_spec() {
  EnvSpec spec;
  spec.id = MountainCarContinuousEnv::kId;
  spec.observation_space = Space::box({f32(kMinPosition), f32(-kMaxSpeed)}, {f32(kMaxPosition), f32(kMaxSpeed)}, {2});
  spec.action_space = Space::box(kMinAction, kMaxAction, {1});
  return spec;
}

}  // namespace

MountainCarContinuousEnv::MountainCarContinuousEnv(MountainCarContinuousConfig config)
    : Env(make_spec()), config_(config) {}

std::vector<double> MountainCarContinuousEnv::get_state() const { return {state_.begin(), state_.end()}; }

void MountainCarContinuousEnv::set_state(std::span<const double> state, Bytes obs) {
  classic_control::check_state_size(id(), state, 2, "[position, velocity]");
  std::copy(state.begin(), state.end(), state_.begin());
  write_obs(obs);
}

void MountainCarContinuousEnv::write_obs(Bytes obs) const {
  auto o = as_span<float>(obs);
  o[0] = static_cast<float>(state_[0]);
  o[1] = static_cast<float>(state_[1]);
}

void MountainCarContinuousEnv::do_reset(std::optional<std::uint64_t>, Bytes obs) {
  state_ = {rng().uniform(-0.6, -0.4), 0.0};
  write_obs(obs);
}

StepResult MountainCarContinuousEnv::do_step(ConstBytes action, Bytes obs) {
  const float a = as_span<float>(action)[0];
  double position = state_[0];
  double velocity = state_[1];
  const double force = classic_control::clip(a, kMinAction, kMaxAction);
  // NumPy 1.x promotes a float32 scalar combined with a Python number to float64, so the
  // float32 state only rounds what is stored, never the arithmetic.
  velocity = velocity + (force * kPower - 0.0025 * std::cos(3 * position));
  if (velocity > kMaxSpeed) velocity = kMaxSpeed;
  if (velocity < -kMaxSpeed) velocity = -kMaxSpeed;
  position = position + velocity;
  if (position > kMaxPosition) position = kMaxPosition;
  if (position < kMinPosition) position = kMinPosition;
  if (position == kMinPosition && velocity < 0) velocity = 0.0;

  StepResult r;
  r.terminated = position >= kGoalPosition && velocity >= config_.goal_velocity;
  // The penalty uses the action as given, not the clipped force.
  const double a2 = static_cast<double>(a) * static_cast<double>(a);  // exact: a is a float32
  r.reward = (r.terminated ? 100.0 : 0.0) - a2 * 0.1;

  state_ = {static_cast<float>(position), static_cast<float>(velocity)};
  write_obs(obs);
  return r;
}

}  // namespace rlzoo
