#include "envs/classic_control/mountain_car.h"

#include <cmath>

#include "envs/classic_control/numerics.h"

namespace rlzoo {

namespace {

using classic_control::f32;

constexpr double kMinPosition = -1.2;
constexpr double kMaxPosition = 0.6;
constexpr double kMaxSpeed = 0.07;
constexpr double kGoalPosition = 0.5;
constexpr double kForce = 0.001;
constexpr double kGravity = 0.0025;

EnvSpec make_spec() {
  EnvSpec spec;
  spec.id = MountainCarEnv::kId;
  spec.observation_space = Space::box({f32(kMinPosition), f32(-kMaxSpeed)}, {f32(kMaxPosition), f32(kMaxSpeed)}, {2});
  spec.action_space = Space::discrete(3);
  return spec;
}

}  // namespace

MountainCarEnv::MountainCarEnv(MountainCarConfig config) : Env(make_spec()), config_(config) {}

std::vector<double> MountainCarEnv::get_state() const { return {state_.begin(), state_.end()}; }

void MountainCarEnv::set_state(std::span<const double> state, Bytes obs) {
  classic_control::check_state_size(id(), state, 2, "[position, velocity]");
  std::copy(state.begin(), state.end(), state_.begin());
  write_obs(obs);
}

void MountainCarEnv::write_obs(Bytes obs) const {
  auto o = as_span<float>(obs);
  o[0] = static_cast<float>(state_[0]);
  o[1] = static_cast<float>(state_[1]);
}

void MountainCarEnv::do_reset(std::optional<std::uint64_t>, Bytes obs) {
  state_ = {rng().uniform(-0.6, -0.4), 0.0};
  write_obs(obs);
}

StepResult MountainCarEnv::do_step(ConstBytes action, Bytes obs) {
  const std::int64_t a = as_span<std::int64_t>(action)[0];
  auto& [position, velocity] = state_;
  velocity = velocity + (static_cast<double>(a - 1) * kForce + std::cos(3 * position) * (-kGravity));
  velocity = classic_control::clip(velocity, -kMaxSpeed, kMaxSpeed);
  position = position + velocity;
  position = classic_control::clip(position, kMinPosition, kMaxPosition);
  if (position == kMinPosition && velocity < 0) velocity = 0.0;

  StepResult r;
  r.terminated = position >= kGoalPosition && velocity >= config_.goal_velocity;
  r.reward = -1.0;
  write_obs(obs);
  return r;
}

}  // namespace rlzoo
