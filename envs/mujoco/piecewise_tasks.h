// MuJoCo tasks with a hidden context for SeCBAD (envs/contexts/piecewise_context.h changes it
// within an episode). Rewards are those of the SeCBAD code's environments (notes §2.6); bodies,
// frame skips, reset noise and observations are Gymnasium v4's (HalfCheetah: qpos[1:], qvel =
// 17; Ant: qpos[2:], qvel = 27; the SeCBAD code appended the torso's centre of mass, which
// Gymnasium's observation does not have). None of them terminates; episodes are cut at 200 steps.
//
//   HalfCheetahDirPiecewise-v0  context d in {-1, +1}, no jitter; reward d v_x - 0.1 |a|^2.
//   HalfCheetahVelPiecewise-v0  context v* ~ U(0, 3), jitter N(0, 0.1); reward -|v_x - v*| - 0.1 |a|^2.
//   AntDirPiecewise-v0          context heading theta ~ U(0, 2 pi), jitter N(0, 0.1) rad; with
//                               u = (cos theta, sin theta) and v the torso's xy velocity, reward
//                               v.u - 0.05 |a|^2 - 5e-4 |clip(cfrc_ext, -1, 1)|^2 - 0.5 |v - (v.u) u|.
// Segments: floor(max(N(80, 20), 10)) steps, contexts redrawn i.i.d. (env_kwargs `segments:`).
#pragma once

#include "core/env/contextual.h"
#include "envs/mujoco/mujoco_env.h"

namespace rlzoo {

class PiecewiseTaskEnv final : public MujocoEnv, public ContextualEnv {
 public:
  enum class Task { CheetahDirection, CheetahVelocity, AntDirection };
  explicit PiecewiseTaskEnv(Task task);

  std::vector<double> sample_context(Rng& rng) const override;
  void set_context(std::span<const double> context) override;
  std::vector<double> context() const override { return {context_}; }
  std::vector<double> jitter(std::span<const double> base, Rng& rng) const override;

 protected:
  void write_observation(Bytes obs) const override;
  void reset_model(Rng& rng) override;
  StepResult step_task(ConstBytes action, Bytes obs) override;
  nlohmann::json do_save_state() const override;
  void do_load_state(const nlohmann::json& state, Bytes obs) override;

 private:
  bool ant() const { return task_ == Task::AntDirection; }
  Task task_;
  double context_ = 1.0;
  int torso_ = 0;
};

void register_piecewise_mujoco_tasks();

}  // namespace rlzoo
