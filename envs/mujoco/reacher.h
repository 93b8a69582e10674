// Reacher-v4 (Gymnasium v4 semantics): move a two-joint arm's fingertip to a random target.
//
//   frame_skip 2 (dt 0.02). obs (11) = cos(qpos[:2]) (2), sin(qpos[:2]) (2), qpos[2:] (the
//   target, 2), qvel[:2] (2), fingertip - target (3, from the bodies' xpos).
//   reward = -|fingertip - target| - sum a^2, computed BEFORE the simulation step (v4).
//   Never terminates (50-step limit). Reset: qpos = qpos0 + U(+-0.1); the target is drawn
//   from U(+-0.2)^2 until |target| < 0.2 and written to qpos[2:]; qvel = U(+-0.005) with the
//   target's velocity 0.
#pragma once

#include <string>

#include "core/config/schema.h"
#include "envs/mujoco/mujoco_env.h"

namespace rlzoo {

struct ReacherConfig {
  std::string model_path;
  double reward_dist_weight = 1.0;
  double reward_control_weight = 1.0;
  static void describe(Fields<ReacherConfig>& f);
};

class ReacherEnv final : public MujocoEnv {
 public:
  static constexpr const char* kId = "Reacher-v4";
  explicit ReacherEnv(ReacherConfig config = {});

 protected:
  void write_observation(Bytes obs) const override;
  void reset_model(Rng& rng) override;
  StepResult step_task(ConstBytes action, Bytes obs) override;

 private:
  ReacherConfig config_;
  int fingertip_, target_;
};

}  // namespace rlzoo
