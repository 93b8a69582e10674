#include "envs/mujoco/ant.h"

#include <mujoco/mujoco.h>

#include <algorithm>
#include <cmath>

namespace rlzoo {

void AntConfig::describe(Fields<AntConfig>& f) {
  f("model_path", &AntConfig::model_path, "MJCF file to use instead of the shipped model");
  f("ctrl_cost_weight", &AntConfig::ctrl_cost_weight, "weight of sum(action^2)", Bound::non_negative());
  f("use_contact_forces", &AntConfig::use_contact_forces, "add contact forces to the observation and their cost");
  f("contact_cost_weight", &AntConfig::contact_cost_weight, "weight of the contact cost", Bound::non_negative());
  f("healthy_reward", &AntConfig::healthy_reward, "reward per step while healthy");
  f("terminate_when_unhealthy", &AntConfig::terminate_when_unhealthy, "end the episode when unhealthy");
  f("healthy_z_range", &AntConfig::healthy_z_range, "closed range for the torso height qpos[2]");
  f("contact_force_range", &AntConfig::contact_force_range, "clip range of the contact forces");
  f("reset_noise_scale", &AntConfig::reset_noise_scale, "scale of the initial-state noise", Bound::non_negative());
  f("exclude_current_positions_from_observation", &AntConfig::exclude_current_positions_from_observation,
    "leave the x, y position out of the observation");
  for (const char* key : {"healthy_z_range", "contact_force_range"})
    f.check(key, [key](const AntConfig& c) -> std::optional<std::string> {
      const auto& r = std::string(key) == "healthy_z_range" ? c.healthy_z_range : c.contact_force_range;
      if (r.size() != 2 || !(r[0] < r[1])) return "must be [low, high] with low < high";
      return std::nullopt;
    });
}

namespace {
std::int64_t ant_obs_dim(const AntConfig& c) {
  const auto model = load_mujoco_model(c.model_path, "ant.xml");  // kept alive while m is used
  const mjModel* m = model->get();
  return (c.exclude_current_positions_from_observation ? m->nq - 2 : m->nq) + m->nv +
         (c.use_contact_forces ? 6 * m->nbody : 0);
}
}  // namespace

AntEnv::AntEnv(AntConfig config)
    : MujocoEnv(kId, load_mujoco_model(config.model_path, "ant.xml"), 5, ant_obs_dim(config)),
      config_(std::move(config)),
      torso_(body_id("torso")) {}

bool AntEnv::is_healthy() const {
  for (int i = 0; i < nq(); ++i)
    if (!std::isfinite(data()->qpos[i])) return false;
  for (int i = 0; i < nv(); ++i)
    if (!std::isfinite(data()->qvel[i])) return false;
  const double z = data()->qpos[2];
  return config_.healthy_z_range[0] <= z && z <= config_.healthy_z_range[1];
}

double AntEnv::contact_cost() const {
  double s = 0;
  for (int i = 0; i < 6 * model()->nbody; ++i) {
    const double f = std::clamp(data()->cfrc_ext[i], config_.contact_force_range[0], config_.contact_force_range[1]);
    s += f * f;
  }
  return config_.contact_cost_weight * s;
}

void AntEnv::write_observation(Bytes obs) const {
  auto o = as_span<double>(obs);
  std::size_t k = 0;
  for (int i = config_.exclude_current_positions_from_observation ? 2 : 0; i < nq(); ++i) o[k++] = data()->qpos[i];
  for (int i = 0; i < nv(); ++i) o[k++] = data()->qvel[i];
  if (config_.use_contact_forces)
    for (int i = 0; i < 6 * model()->nbody; ++i)
      o[k++] = std::clamp(data()->cfrc_ext[i], config_.contact_force_range[0], config_.contact_force_range[1]);
}

void AntEnv::reset_model(Rng& rng) {
  const auto qpos = plus_uniform(init_qpos(), config_.reset_noise_scale, rng);
  const auto qvel = plus_normal(init_qvel(), config_.reset_noise_scale, rng);
  set_state(qpos, qvel);
}

StepResult AntEnv::step_task(ConstBytes action, Bytes obs) {
  const auto a = as_span<const float>(action);
  const double x_before = data()->xpos[3 * torso_], y_before = data()->xpos[3 * torso_ + 1];
  simulate(a);
  const double x_velocity = (data()->xpos[3 * torso_] - x_before) / dt();
  const double y_velocity = (data()->xpos[3 * torso_ + 1] - y_before) / dt();
  const bool healthy = is_healthy();
  const double healthy_reward = healthy || config_.terminate_when_unhealthy ? config_.healthy_reward : 0.0;
  double cost = config_.ctrl_cost_weight * squared_norm(a);
  if (config_.use_contact_forces) cost += contact_cost();
  write_observation(obs);
  Info& info = mutable_info();
  info.set_scalar("x_position", data()->xpos[3 * torso_]);
  info.set_scalar("x_velocity", x_velocity);
  info.set_scalar("y_velocity", y_velocity);
  info.set_scalar("reward_forward", x_velocity);
  info.set_scalar("reward_survive", healthy_reward);
  return {x_velocity + healthy_reward - cost, config_.terminate_when_unhealthy && !healthy, false};
}

}  // namespace rlzoo
