// Planar locomotion tasks with Gymnasium v4 semantics: HalfCheetah-v4, Hopper-v4, Walker2d-v4,
// Swimmer-v4. x_velocity = (qpos[0] after - qpos[0] before) / dt over one step (dt =
// timestep * frame_skip); ctrl_cost = ctrl_cost_weight * sum(action^2) (in float64; Gymnasium's
// NumPy sums the float32 action in float32, a difference below 1e-7 relative).
//
//   HalfCheetah-v4  frame_skip 5. obs (17) = qpos[1:] (8), qvel (9). reward = 1.0 x_velocity
//                   - 0.1 sum a^2. Never terminates. Reset: qpos + U(+-0.1), qvel + 0.1 N(0,1).
//   Hopper-v4       frame_skip 4. obs (11) = qpos[1:] (5), clip(qvel, +-10) (6). reward =
//                   1.0 x_velocity + healthy_reward - 1e-3 sum a^2, where healthy_reward = 1
//                   also on the terminating step (v4). Healthy: every state_vector()[2:] in
//                   (-100, 100), z = qpos[1] in (0.7, inf), angle = qpos[2] in (-0.2, 0.2)
//                   (strict); terminates when unhealthy. Reset: qpos, qvel + U(+-0.005).
//   Walker2d-v4     frame_skip 4. obs (17) = qpos[1:] (8), clip(qvel, +-10) (9). reward as
//                   Hopper's. Healthy: z in (0.8, 2.0), angle in (-1, 1) (strict). Reset as
//                   Hopper's. The v4 model (right foot friction 0.9, left 1.9).
//   Swimmer-v4      frame_skip 4. obs (8) = qpos[2:] (3), qvel (5). reward = 1.0 x_velocity
//                   - 1e-4 sum a^2. Never terminates. Reset: qpos, qvel + U(+-0.1).
// With exclude_current_positions_from_observation false, the observation starts with qpos[0]
// (Swimmer: qpos[0:2]). Info scalars: x_position, x_velocity, reward_run/forward, reward_ctrl.
#pragma once

#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "core/config/schema.h"
#include "envs/mujoco/mujoco_env.h"

namespace rlzoo {

// Keyword arguments shared by the four tasks; each task has its own defaults (below).
struct PlanarRunnerConfig {
  std::string model_path;  // empty: the shipped model
  double forward_reward_weight = 1.0;
  double ctrl_cost_weight = 0.1;
  double healthy_reward = 1.0;
  bool terminate_when_unhealthy = true;
  std::vector<double> healthy_state_range{-100.0, 100.0};
  std::vector<double> healthy_z_range{0.7, std::numeric_limits<double>::infinity()};
  std::vector<double> healthy_angle_range{-0.2, 0.2};
  double reset_noise_scale = 0.1;
  bool exclude_current_positions_from_observation = true;

  static void describe(Fields<PlanarRunnerConfig>& f);
  static PlanarRunnerConfig half_cheetah();
  static PlanarRunnerConfig hopper();
  static PlanarRunnerConfig walker2d();
  static PlanarRunnerConfig swimmer();
};

class PlanarRunnerEnv final : public MujocoEnv {
 public:
  enum class Kind { HalfCheetah, Hopper, Walker2d, Swimmer };
  PlanarRunnerEnv(Kind kind, PlanarRunnerConfig config);

  static const char* id_of(Kind kind);
  bool is_healthy() const;
  const PlanarRunnerConfig& config() const { return config_; }

 protected:
  void write_observation(Bytes obs) const override;
  void reset_model(Rng& rng) override;
  StepResult step_task(ConstBytes action, Bytes obs) override;

 private:
  Kind kind_;
  PlanarRunnerConfig config_;
};

}  // namespace rlzoo
