#include "envs/mujoco/humanoid.h"

#include <mujoco/mujoco.h>

namespace rlzoo {

void HumanoidConfig::describe(Fields<HumanoidConfig>& f) {
  f("model_path", &HumanoidConfig::model_path, "MJCF file to use instead of the shipped model");
  f("forward_reward_weight", &HumanoidConfig::forward_reward_weight, "weight of the forward velocity reward");
  f("ctrl_cost_weight", &HumanoidConfig::ctrl_cost_weight, "weight of sum(ctrl^2)", Bound::non_negative());
  f("healthy_reward", &HumanoidConfig::healthy_reward, "reward per step while healthy");
  f("terminate_when_unhealthy", &HumanoidConfig::terminate_when_unhealthy, "end the episode when unhealthy");
  f("healthy_z_range", &HumanoidConfig::healthy_z_range, "open range for the torso height qpos[2]");
  f("reset_noise_scale", &HumanoidConfig::reset_noise_scale, "scale of the initial-state noise",
    Bound::non_negative());
  f("exclude_current_positions_from_observation", &HumanoidConfig::exclude_current_positions_from_observation,
    "leave the x, y position out of the observation");
  f.check("healthy_z_range", [](const HumanoidConfig& c) -> std::optional<std::string> {
    if (c.healthy_z_range.size() != 2 || !(c.healthy_z_range[0] < c.healthy_z_range[1]))
      return "must be [low, high] with low < high";
    return std::nullopt;
  });
}

namespace {
std::int64_t humanoid_obs_dim(const HumanoidConfig& c) {
  const auto model = load_mujoco_model(c.model_path, "humanoid.xml");  // kept alive while m is used
  const mjModel* m = model->get();
  return (c.exclude_current_positions_from_observation ? m->nq - 2 : m->nq) + m->nv + 10 * m->nbody +
         6 * m->nbody + m->nv + 6 * m->nbody;
}
}  // namespace

HumanoidEnv::HumanoidEnv(HumanoidConfig config)
    : MujocoEnv(kId, load_mujoco_model(config.model_path, "humanoid.xml"), 5, humanoid_obs_dim(config)),
      config_(std::move(config)) {}

bool HumanoidEnv::is_healthy() const {
  const double z = data()->qpos[2];
  return config_.healthy_z_range[0] < z && z < config_.healthy_z_range[1];
}

std::array<double, 2> HumanoidEnv::mass_center() const {
  double mass = 0, x = 0, y = 0;
  for (int b = 0; b < model()->nbody; ++b) {
    const double m = model()->body_mass[b];
    mass += m;
    x += m * data()->xipos[3 * b];
    y += m * data()->xipos[3 * b + 1];
  }
  return {x / mass, y / mass};
}

void HumanoidEnv::write_observation(Bytes obs) const {
  auto o = as_span<double>(obs);
  std::size_t k = 0;
  auto put = [&](const double* p, int n) {
    for (int i = 0; i < n; ++i) o[k++] = p[i];
  };
  const int skip = config_.exclude_current_positions_from_observation ? 2 : 0;
  put(data()->qpos + skip, nq() - skip);
  put(data()->qvel, nv());
  put(data()->cinert, 10 * model()->nbody);
  put(data()->cvel, 6 * model()->nbody);
  put(data()->qfrc_actuator, nv());
  put(data()->cfrc_ext, 6 * model()->nbody);
}

void HumanoidEnv::reset_model(Rng& rng) {
  const auto qpos = plus_uniform(init_qpos(), config_.reset_noise_scale, rng);
  const auto qvel = plus_uniform(init_qvel(), config_.reset_noise_scale, rng);
  set_state(qpos, qvel);
}

StepResult HumanoidEnv::step_task(ConstBytes action, Bytes obs) {
  const auto a = as_span<const float>(action);
  const auto before = mass_center();
  simulate(a);
  const auto after = mass_center();
  const double x_velocity = (after[0] - before[0]) / dt();
  // Gymnasium squares data.ctrl: the action as float64 (MuJoCo clamps internally, not ctrl).
  const double ctrl_cost = config_.ctrl_cost_weight * squared_norm(a);
  const double forward = config_.forward_reward_weight * x_velocity;
  const bool healthy = is_healthy();
  const double healthy_reward = healthy || config_.terminate_when_unhealthy ? config_.healthy_reward : 0.0;
  write_observation(obs);
  Info& info = mutable_info();
  info.set_scalar("x_position", after[0]);
  info.set_scalar("x_velocity", x_velocity);
  info.set_scalar("reward_linvel", forward);
  info.set_scalar("reward_quadctrl", -ctrl_cost);
  info.set_scalar("reward_alive", healthy_reward);
  return {forward + healthy_reward - ctrl_cost, config_.terminate_when_unhealthy && !healthy, false};
}

}  // namespace rlzoo
