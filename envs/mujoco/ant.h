// Ant-v4 (Gymnasium v4 semantics): a four-legged robot walking forward.
//
//   frame_skip 5 (dt 0.05). obs (27) = qpos[2:] (13), qvel (14); with use_contact_forces,
//   also clip(cfrc_ext, -1, 1) of all 14 bodies (84 more, 111).
//   reward = x_velocity + healthy_reward - 0.5 sum a^2 [- 5e-4 sum clip(cfrc_ext, -1, 1)^2
//   with use_contact_forces], where x_velocity comes from the torso's xpos (as Gymnasium:
//   xpos lags qpos by one substep) and healthy_reward = 1 also on the terminating step.
//   Healthy: state_vector() all finite and 0.2 <= qpos[2] <= 1.0 (inclusive); terminates when
//   unhealthy. Reset: qpos + U(+-0.1), qvel + 0.1 N(0, 1).
#pragma once

#include <string>
#include <vector>

#include "core/config/schema.h"
#include "envs/mujoco/mujoco_env.h"

namespace rlzoo {

struct AntConfig {
  std::string model_path;
  double ctrl_cost_weight = 0.5;
  bool use_contact_forces = false;
  double contact_cost_weight = 5e-4;
  double healthy_reward = 1.0;
  bool terminate_when_unhealthy = true;
  std::vector<double> healthy_z_range{0.2, 1.0};
  std::vector<double> contact_force_range{-1.0, 1.0};
  double reset_noise_scale = 0.1;
  bool exclude_current_positions_from_observation = true;
  static void describe(Fields<AntConfig>& f);
};

class AntEnv final : public MujocoEnv {
 public:
  static constexpr const char* kId = "Ant-v4";
  explicit AntEnv(AntConfig config = {});
  bool is_healthy() const;
  double contact_cost() const;

 protected:
  void write_observation(Bytes obs) const override;
  void reset_model(Rng& rng) override;
  StepResult step_task(ConstBytes action, Bytes obs) override;

 private:
  AntConfig config_;
  int torso_;
};

}  // namespace rlzoo
