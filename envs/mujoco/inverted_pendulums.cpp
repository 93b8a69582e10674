#include "envs/mujoco/inverted_pendulums.h"

#include <mujoco/mujoco.h>

#include <algorithm>
#include <cmath>

#include "envs/classic_control/numerics.h"

namespace rlzoo {

using classic_control::py_square;

void InvertedPendulumConfig::describe(Fields<InvertedPendulumConfig>& f) {
  f("model_path", &InvertedPendulumConfig::model_path, "MJCF file to use instead of the shipped model");
  f("reset_noise_scale", &InvertedPendulumConfig::reset_noise_scale, "scale of the initial-state noise",
    Bound::non_negative());
}

InvertedPendulumEnv::InvertedPendulumEnv(InvertedPendulumConfig config)
    : MujocoEnv(kId, load_mujoco_model(config.model_path, "inverted_pendulum.xml"), 2, 4), config_(std::move(config)) {}

void InvertedPendulumEnv::write_observation(Bytes obs) const {
  auto o = as_span<double>(obs);
  o[0] = data()->qpos[0];
  o[1] = data()->qpos[1];
  o[2] = data()->qvel[0];
  o[3] = data()->qvel[1];
}

void InvertedPendulumEnv::reset_model(Rng& rng) {
  const auto qpos = plus_uniform(init_qpos(), config_.reset_noise_scale, rng);
  const auto qvel = plus_uniform(init_qvel(), config_.reset_noise_scale, rng);
  set_state(qpos, qvel);
}

StepResult InvertedPendulumEnv::step_task(ConstBytes action, Bytes obs) {
  simulate(as_span<const float>(action));
  write_observation(obs);
  const auto o = as_span<const double>(ConstBytes(obs));
  const bool finite = std::all_of(o.begin(), o.end(), [](double v) { return std::isfinite(v); });
  return {1.0, !finite || std::abs(o[1]) > 0.2, false};
}

void InvertedDoublePendulumConfig::describe(Fields<InvertedDoublePendulumConfig>& f) {
  f("model_path", &InvertedDoublePendulumConfig::model_path, "MJCF file to use instead of the shipped model");
  f("healthy_reward", &InvertedDoublePendulumConfig::healthy_reward, "alive bonus per step");
  f("reset_noise_scale", &InvertedDoublePendulumConfig::reset_noise_scale, "scale of the initial-state noise",
    Bound::non_negative());
}

InvertedDoublePendulumEnv::InvertedDoublePendulumEnv(InvertedDoublePendulumConfig config)
    : MujocoEnv(kId, load_mujoco_model(config.model_path, "inverted_double_pendulum.xml"), 5, 11),
      config_(std::move(config)),
      tip_(site_id("tip")) {}

void InvertedDoublePendulumEnv::write_observation(Bytes obs) const {
  auto o = as_span<double>(obs);
  const double* q = data()->qpos;
  const double* v = data()->qvel;
  const double* c = data()->qfrc_constraint;
  o[0] = q[0];
  o[1] = std::sin(q[1]);
  o[2] = std::sin(q[2]);
  o[3] = std::cos(q[1]);
  o[4] = std::cos(q[2]);
  for (int i = 0; i < 3; ++i) o[5 + static_cast<std::size_t>(i)] = std::clamp(v[i], -10.0, 10.0);
  for (int i = 0; i < 3; ++i) o[8 + static_cast<std::size_t>(i)] = std::clamp(c[i], -10.0, 10.0);
}

void InvertedDoublePendulumEnv::reset_model(Rng& rng) {
  const auto qpos = plus_uniform(init_qpos(), config_.reset_noise_scale, rng);
  const auto qvel = plus_normal(init_qvel(), config_.reset_noise_scale, rng);
  set_state(qpos, qvel);
}

StepResult InvertedDoublePendulumEnv::step_task(ConstBytes action, Bytes obs) {
  simulate(as_span<const float>(action));
  write_observation(obs);
  const double x = data()->site_xpos[3 * tip_], y = data()->site_xpos[3 * tip_ + 2];
  const double dist_penalty = 0.01 * py_square(x) + py_square(y - 2);
  const double v1 = data()->qvel[1], v2 = data()->qvel[2];
  const double vel_penalty = 1e-3 * py_square(v1) + 5e-3 * py_square(v2);
  const double reward = config_.healthy_reward - dist_penalty - vel_penalty;
  Info& info = mutable_info();
  info.set_scalar("distance_penalty", dist_penalty);
  info.set_scalar("velocity_penalty", vel_penalty);
  return {reward, y <= 1.0, false};
}

}  // namespace rlzoo
