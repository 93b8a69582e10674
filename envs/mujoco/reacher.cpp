#include "envs/mujoco/reacher.h"

#include <mujoco/mujoco.h>

#include <cmath>

namespace rlzoo {

void ReacherConfig::describe(Fields<ReacherConfig>& f) {
  f("model_path", &ReacherConfig::model_path, "MJCF file to use instead of the shipped model");
  f("reward_dist_weight", &ReacherConfig::reward_dist_weight, "weight of the distance penalty", Bound::non_negative());
  f("reward_control_weight", &ReacherConfig::reward_control_weight, "weight of sum(action^2)", Bound::non_negative());
}

ReacherEnv::ReacherEnv(ReacherConfig config)
    : MujocoEnv(kId, load_mujoco_model(config.model_path, "reacher.xml"), 2, 11),
      config_(std::move(config)),
      fingertip_(body_id("fingertip")),
      target_(body_id("target")) {}

void ReacherEnv::write_observation(Bytes obs) const {
  auto o = as_span<double>(obs);
  const double* q = data()->qpos;
  o[0] = std::cos(q[0]);
  o[1] = std::cos(q[1]);
  o[2] = std::sin(q[0]);
  o[3] = std::sin(q[1]);
  o[4] = q[2];
  o[5] = q[3];
  o[6] = data()->qvel[0];
  o[7] = data()->qvel[1];
  for (int i = 0; i < 3; ++i)
    o[8 + static_cast<std::size_t>(i)] = data()->xpos[3 * fingertip_ + i] - data()->xpos[3 * target_ + i];
}

void ReacherEnv::reset_model(Rng& rng) {
  auto qpos = plus_uniform(init_qpos(), 0.1, rng);
  double gx, gy;
  do {
    gx = rng.uniform(-0.2, 0.2);
    gy = rng.uniform(-0.2, 0.2);
  } while (!(std::hypot(gx, gy) < 0.2));
  qpos[2] = gx;
  qpos[3] = gy;
  auto qvel = plus_uniform(init_qvel(), 0.005, rng);
  qvel[2] = qvel[3] = 0.0;
  set_state(qpos, qvel);
}

StepResult ReacherEnv::step_task(ConstBytes action, Bytes obs) {
  const auto a = as_span<const float>(action);
  double d2 = 0;
  for (int i = 0; i < 3; ++i) {
    const double d = data()->xpos[3 * fingertip_ + i] - data()->xpos[3 * target_ + i];
    d2 += d * d;
  }
  const double reward_dist = -config_.reward_dist_weight * std::sqrt(d2);
  const double reward_ctrl = -config_.reward_control_weight * squared_norm(a);
  simulate(a);
  write_observation(obs);
  Info& info = mutable_info();
  info.set_scalar("reward_dist", reward_dist);
  info.set_scalar("reward_ctrl", reward_ctrl);
  return {reward_dist + reward_ctrl, false, false};
}

}  // namespace rlzoo
