#include "envs/mujoco/planar_runners.h"

#include <mujoco/mujoco.h>

#include <algorithm>
#include <cmath>

namespace rlzoo {

void PlanarRunnerConfig::describe(Fields<PlanarRunnerConfig>& f) {
  f("model_path", &PlanarRunnerConfig::model_path, "MJCF file to use instead of the shipped model");
  f("forward_reward_weight", &PlanarRunnerConfig::forward_reward_weight, "weight of the forward velocity reward");
  f("ctrl_cost_weight", &PlanarRunnerConfig::ctrl_cost_weight, "weight of sum(action^2)", Bound::non_negative());
  f("healthy_reward", &PlanarRunnerConfig::healthy_reward, "reward per step while healthy (Hopper, Walker2d)");
  f("terminate_when_unhealthy", &PlanarRunnerConfig::terminate_when_unhealthy,
    "end the episode when unhealthy (Hopper, Walker2d)");
  f("healthy_state_range", &PlanarRunnerConfig::healthy_state_range,
    "open range for state_vector()[2:] (Hopper; empty: unchecked)");
  f("healthy_z_range", &PlanarRunnerConfig::healthy_z_range, "open range for the torso height qpos[1]");
  f("healthy_angle_range", &PlanarRunnerConfig::healthy_angle_range, "open range for the torso angle qpos[2]");
  f("reset_noise_scale", &PlanarRunnerConfig::reset_noise_scale, "scale of the initial-state noise",
    Bound::non_negative());
  f("exclude_current_positions_from_observation", &PlanarRunnerConfig::exclude_current_positions_from_observation,
    "leave the x (Swimmer: x, y) position out of the observation");
  for (const char* key : {"healthy_state_range", "healthy_z_range", "healthy_angle_range"})
    f.check(key, [key](const PlanarRunnerConfig& c) -> std::optional<std::string> {
      const auto& r = std::string(key) == "healthy_state_range" ? c.healthy_state_range
                      : std::string(key) == "healthy_z_range"   ? c.healthy_z_range
                                                                : c.healthy_angle_range;
      if (!r.empty() && (r.size() != 2 || !(r[0] < r[1]))) return "must be [low, high] with low < high";
      return std::nullopt;
    });
}

PlanarRunnerConfig PlanarRunnerConfig::half_cheetah() {
  PlanarRunnerConfig c;
  c.ctrl_cost_weight = 0.1;
  c.reset_noise_scale = 0.1;
  return c;
}
PlanarRunnerConfig PlanarRunnerConfig::hopper() {
  PlanarRunnerConfig c;
  c.ctrl_cost_weight = 1e-3;
  c.reset_noise_scale = 5e-3;
  return c;
}
PlanarRunnerConfig PlanarRunnerConfig::walker2d() {
  PlanarRunnerConfig c;
  c.ctrl_cost_weight = 1e-3;
  c.reset_noise_scale = 5e-3;
  c.healthy_state_range.clear();
  c.healthy_z_range = {0.8, 2.0};
  c.healthy_angle_range = {-1.0, 1.0};
  return c;
}
PlanarRunnerConfig PlanarRunnerConfig::swimmer() {
  PlanarRunnerConfig c;
  c.ctrl_cost_weight = 1e-4;
  c.reset_noise_scale = 0.1;
  return c;
}

namespace {
using Kind = PlanarRunnerEnv::Kind;
const char* asset_of(Kind k) {
  switch (k) {
    case Kind::HalfCheetah: return "half_cheetah.xml";
    case Kind::Hopper: return "hopper.xml";
    case Kind::Walker2d: return "walker2d.xml";
    case Kind::Swimmer: return "swimmer.xml";
  }
  return "";
}
int frame_skip_of(Kind k) { return k == Kind::HalfCheetah ? 5 : 4; }
// Leading qpos entries left out of the observation: x (Swimmer: x and y).
int excluded(Kind k, const PlanarRunnerConfig& c) {
  if (!c.exclude_current_positions_from_observation) return 0;
  return k == Kind::Swimmer ? 2 : 1;
}
bool has_health(Kind k) { return k == Kind::Hopper || k == Kind::Walker2d; }
bool inside(const std::vector<double>& range, double v) { return range.empty() || (range[0] < v && v < range[1]); }
}  // namespace

const char* PlanarRunnerEnv::id_of(Kind kind) {
  switch (kind) {
    case Kind::HalfCheetah: return "HalfCheetah-v4";
    case Kind::Hopper: return "Hopper-v4";
    case Kind::Walker2d: return "Walker2d-v4";
    case Kind::Swimmer: return "Swimmer-v4";
  }
  return "";
}

PlanarRunnerEnv::PlanarRunnerEnv(Kind kind, PlanarRunnerConfig config)
    : MujocoEnv(id_of(kind), load_mujoco_model(config.model_path, asset_of(kind)), frame_skip_of(kind),
                [&] {
                  auto m = load_mujoco_model(config.model_path, asset_of(kind));
                  return static_cast<std::int64_t>(m->get()->nq - excluded(kind, config) + m->get()->nv);
                }()),
      kind_(kind),
      config_(std::move(config)) {}

bool PlanarRunnerEnv::is_healthy() const {
  const double* qpos = data()->qpos;
  const double z = qpos[1], angle = qpos[2];
  bool state_ok = true;
  if (!config_.healthy_state_range.empty()) {
    // state_vector()[2:] = qpos[2:] followed by qvel
    for (int i = 2; i < nq(); ++i) state_ok = state_ok && inside(config_.healthy_state_range, qpos[i]);
    for (int i = 0; i < nv(); ++i) state_ok = state_ok && inside(config_.healthy_state_range, data()->qvel[i]);
  }
  return state_ok && inside(config_.healthy_z_range, z) && inside(config_.healthy_angle_range, angle);
}

void PlanarRunnerEnv::write_observation(Bytes obs) const {
  auto o = as_span<double>(obs);
  std::size_t k = 0;
  for (int i = excluded(kind_, config_); i < nq(); ++i) o[k++] = data()->qpos[i];
  const bool clip = has_health(kind_);  // Hopper and Walker2d clip velocities to +-10
  for (int i = 0; i < nv(); ++i) o[k++] = clip ? std::clamp(data()->qvel[i], -10.0, 10.0) : data()->qvel[i];
}

void PlanarRunnerEnv::reset_model(Rng& rng) {
  const double s = config_.reset_noise_scale;
  const auto qpos = plus_uniform(init_qpos(), s, rng);
  const auto qvel = kind_ == Kind::HalfCheetah ? plus_normal(init_qvel(), s, rng) : plus_uniform(init_qvel(), s, rng);
  set_state(qpos, qvel);
}

StepResult PlanarRunnerEnv::step_task(ConstBytes action, Bytes obs) {
  const auto a = as_span<const float>(action);
  const double x_before = data()->qpos[0];
  simulate(a);
  const double x_after = data()->qpos[0];
  const double x_velocity = (x_after - x_before) / dt();
  const double forward = config_.forward_reward_weight * x_velocity;
  const double ctrl_cost = config_.ctrl_cost_weight * squared_norm(a);
  double reward = forward - ctrl_cost;
  bool terminated = false;
  if (has_health(kind_)) {
    const bool healthy = is_healthy();
    // v4 pays the healthy reward also on the step that ends the episode.
    reward = forward + (healthy || config_.terminate_when_unhealthy ? config_.healthy_reward : 0.0) - ctrl_cost;
    terminated = config_.terminate_when_unhealthy && !healthy;
  }
  write_observation(obs);
  Info& info = mutable_info();
  info.set_scalar("x_position", x_after);
  info.set_scalar("x_velocity", x_velocity);
  info.set_scalar("reward_forward", forward);
  info.set_scalar("reward_ctrl", -ctrl_cost);
  return {reward, terminated, false};
}

}  // namespace rlzoo
