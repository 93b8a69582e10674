// InvertedPendulum-v4 and InvertedDoublePendulum-v4 (Gymnasium v4 semantics): balance a
// pole (or two stacked poles) on a cart.
//
//   InvertedPendulum-v4        frame_skip 2 (dt 0.04). obs (4) = qpos (2), qvel (2). reward 1
//                              every step, also the terminating one. Terminates when the
//                              observation is not finite or |qpos[1]| > 0.2. Reset: qpos,
//                              qvel + U(+-0.01). Action Box(-3, 3).
//   InvertedDoublePendulum-v4  frame_skip 5 (dt 0.05). obs (11) = qpos[0], sin(qpos[1:]) (2),
//                              cos(qpos[1:]) (2), clip(qvel, +-10) (3), clip(qfrc_constraint,
//                              +-10) (3). With (x, _, y) the tip site's position (lagging qpos
//                              by one substep, as Gymnasium): reward = 10 - (0.01 x^2 +
//                              (y - 2)^2) - (1e-3 v1^2 + 5e-3 v2^2), v1, v2 = qvel[1], qvel[2].
//                              Terminates when y <= 1. Reset: qpos + U(+-0.1), qvel + 0.1 N(0,1).
// Squares are computed as Python's float ** 2 (libm pow, envs/classic_control/numerics.h).
#pragma once

#include <string>

#include "core/config/schema.h"
#include "envs/mujoco/mujoco_env.h"

namespace rlzoo {

struct InvertedPendulumConfig {
  std::string model_path;
  double reset_noise_scale = 0.01;
  static void describe(Fields<InvertedPendulumConfig>& f);
};

class InvertedPendulumEnv final : public MujocoEnv {
 public:
  static constexpr const char* kId = "InvertedPendulum-v4";
  explicit InvertedPendulumEnv(InvertedPendulumConfig config = {});

 protected:
  void write_observation(Bytes obs) const override;
  void reset_model(Rng& rng) override;
  StepResult step_task(ConstBytes action, Bytes obs) override;

 private:
  InvertedPendulumConfig config_;
};

struct InvertedDoublePendulumConfig {
  std::string model_path;
  double healthy_reward = 10.0;
  double reset_noise_scale = 0.1;
  static void describe(Fields<InvertedDoublePendulumConfig>& f);
};

class InvertedDoublePendulumEnv final : public MujocoEnv {
 public:
  static constexpr const char* kId = "InvertedDoublePendulum-v4";
  explicit InvertedDoublePendulumEnv(InvertedDoublePendulumConfig config = {});

 protected:
  void write_observation(Bytes obs) const override;
  void reset_model(Rng& rng) override;
  StepResult step_task(ConstBytes action, Bytes obs) override;

 private:
  InvertedDoublePendulumConfig config_;
  int tip_;
};

}  // namespace rlzoo
