// Humanoid-v4 (Gymnasium v4 semantics): a 3D biped learning to run forward.
//
//   frame_skip 5 (dt 0.015). obs (376) = qpos[2:] (22), qvel (23), cinert (140), cvel (84),
//   qfrc_actuator (23), cfrc_ext (84).
//   reward = 1.25 x_velocity + healthy_reward - 0.1 sum ctrl^2, where x_velocity is that of
//   the mass-weighted centre of the bodies' xipos (lagging qpos by one substep, as Gymnasium),
//   healthy_reward = 5 also on the terminating step. No contact cost in v4.
//   Healthy: 1.0 < qpos[2] < 2.0; terminates when unhealthy. Reset: qpos, qvel + U(+-0.01).
#pragma once

#include <array>
#include <string>
#include <vector>

#include "core/config/schema.h"
#include "envs/mujoco/mujoco_env.h"

namespace rlzoo {

struct HumanoidConfig {
  std::string model_path;
  double forward_reward_weight = 1.25;
  double ctrl_cost_weight = 0.1;
  double healthy_reward = 5.0;
  bool terminate_when_unhealthy = true;
  std::vector<double> healthy_z_range{1.0, 2.0};
  double reset_noise_scale = 1e-2;
  bool exclude_current_positions_from_observation = true;
  static void describe(Fields<HumanoidConfig>& f);
};

class HumanoidEnv final : public MujocoEnv {
 public:
  static constexpr const char* kId = "Humanoid-v4";
  explicit HumanoidEnv(HumanoidConfig config = {});
  bool is_healthy() const;
  // Mass-weighted mean of the bodies' xipos, x and y.
  std::array<double, 2> mass_center() const;

 protected:
  void write_observation(Bytes obs) const override;
  void reset_model(Rng& rng) override;
  StepResult step_task(ConstBytes action, Bytes obs) override;

 private:
  HumanoidConfig config_;
};

}  // namespace rlzoo
