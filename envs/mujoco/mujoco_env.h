// The generic MuJoCo env, with Gymnasium's MujocoEnv semantics (v4):
//  * a read-only model shared by all copies (envs/mujoco/mujoco_model.h), an mjData per env;
//  * step: ctrl = action (MuJoCo clamps it to ctrlrange), mj_step frame_skip times, then
//    mj_rnePostConstraint once (fills cacc/cfrc_int/cfrc_ext for observations and costs);
//  * reset: mj_resetData, then the task's reset_model() (initial qpos/qvel plus noise, through
//    set_state, which runs mj_forward);
//  * dt = timestep * frame_skip; the action space is Box(ctrlrange) float32.
// Observations are float64, as Gymnasium's.
//
// Tasks derive from it and implement write_observation(), reset_model() and step_task() (which
// calls simulate()); ObservationLayout helps assemble observations from slices of mjData.
//
// Instability: when a step makes a position, velocity or acceleration NaN or huge, MuJoCo warns
// (mjWARN_BADQPOS/BADQVEL/BADQACC) and resets the data to the model's initial state by itself.
// The episode must not continue as if nothing happened: that step is truncated (unless it
// terminated), its reward is 0 (the task's would compare positions across the reset), info
// scalar "physics_reset" = 1 marks it, and the first occurrence per env is logged. MuJoCo's own
// warning text goes to rlzoo's log (mju_user_warning), not to stdout or MUJOCO_LOG.TXT.
// `rlzoo env replay` uses get_state()/set_state(): the state is qpos followed by qvel.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/env/env.h"
#include "envs/mujoco/mujoco_model.h"

struct mjData_;
typedef struct mjData_ mjData;

namespace rlzoo {

class MujocoEnv : public Env, public StateAccess {
 public:
  ~MujocoEnv() override;

  const mjModel* model() const { return model_->get(); }
  const MujocoModel& shared_model() const { return *model_; }
  mjData* data() { return data_; }
  const mjData* data() const { return data_; }
  int frame_skip() const { return frame_skip_; }
  double dt() const;
  int nq() const;
  int nv() const;

  // Gymnasium's set_state: copies qpos (nq) and qvel (nv), then mj_forward. UserError on a
  // wrong size.
  void set_state(std::span<const double> qpos, std::span<const double> qvel);
  // StateAccess: qpos followed by qvel.
  std::vector<double> get_state() const override;
  void set_state(std::span<const double> state, Bytes obs) override;

  // Index of a named body / site / joint; UserError naming the model when it is missing.
  int body_id(const char* name) const;
  int site_id(const char* name) const;

 protected:
  // obs_dim: float64 observation size. The action space comes from the model's actuators.
  MujocoEnv(const std::string& id, std::shared_ptr<const MujocoModel> model, int frame_skip, std::int64_t obs_dim);

  // Hooks of a task.
  virtual void write_observation(Bytes obs) const = 0;
  // Sets the initial state (normally init_qpos()/init_qvel() plus noise, via set_state()).
  virtual void reset_model(Rng& rng) = 0;

  // Sets ctrl from the float32 action and advances frame_skip steps (see above).
  void simulate(std::span<const float> action);
  // qpos0 and zero velocities: the state after mj_resetData.
  std::span<const double> init_qpos() const { return init_qpos_; }
  std::span<const double> init_qvel() const { return init_qvel_; }

  // One env step of the task: its reward, termination and info (calls simulate()).
  virtual StepResult step_task(ConstBytes action, Bytes obs) = 0;

  void do_reset(std::optional<std::uint64_t> seed, Bytes obs) override;
  StepResult do_step(ConstBytes action, Bytes obs) final;
  nlohmann::json do_save_state() const override;
  void do_load_state(const nlohmann::json& state, Bytes obs) override;

 private:
  // The integration state before the last mj_step. After mj_step, MuJoCo's derived quantities
  // (body positions, contact forces) belong to the state the step started from, and tasks read
  // them, as Gymnasium's do. A saved state therefore carries this origin, and loading replays
  // the last mj_step from it so that every derived quantity is restored bit for bit.
  struct StepOrigin {
    bool valid = false;  // false after a reset or set_state (mj_forward ran on the current state)
    double time = 0;
    std::vector<double> qpos, qvel, act, qacc_warmstart;
  };

  std::shared_ptr<const MujocoModel> model_;
  mjData* data_;
  int frame_skip_;
  std::vector<double> init_qpos_, init_qvel_;
  StepOrigin origin_;
  bool warned_physics_reset_ = false;
};

// U(-scale, scale) noise added to `base` (Gymnasium's np_random.uniform(low, high, size)).
std::vector<double> plus_uniform(std::span<const double> base, double scale, Rng& rng);
// scale * N(0, 1) noise added to `base` (Gymnasium's scale * np_random.standard_normal(size)).
std::vector<double> plus_normal(std::span<const double> base, double scale, Rng& rng);
// sum of squares of the action, in float64.
double squared_norm(std::span<const float> action);

}  // namespace rlzoo
