// MJCF-v0: any MuJoCo model as an env, configured from YAML, with C++ hooks for the rest.
//
//   env: MJCF-v0
//   env_kwargs:
//     model_path: robots/my_arm.xml      # required
//     frame_skip: 4
//     observation: ["qpos[1:]", "qvel", "sensordata"]    # concatenated in this order
//     clip_velocity: 10                  # clip qvel in the observation to +-10 (0: no clip)
//     reset_noise_scale: 0.005           # qpos, qvel + U(-s, s)
//     forward_reward_weight: 1.0         # reward = w_f * x_velocity + healthy_reward
//     forward_body: torso                #   x_velocity of this body's xpos ("": of qpos[0])
//     ctrl_cost_weight: 0.001            #   - w_c * sum(action^2)
//     healthy_reward: 1.0
//     healthy_z_range: [0.7, 1e9]        # healthy while qpos[healthy_z_index] is inside (open;
//                                        #   config numbers are finite: a large one for "no bound")
//     healthy_z_index: 1
//     terminate_when_unhealthy: true
//
// Observation sources: qpos, qvel, act, ctrl, cinert, cvel, qfrc_actuator, qfrc_constraint,
// cfrc_ext, xpos, xipos, site_xpos, sensordata, each optionally sliced as name[begin:end]
// (Python-style, negative indices count from the end). From C++, set_reward_hook() and
// set_termination_hook() replace the reward and termination rules.
#pragma once

#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "core/config/schema.h"
#include "envs/mujoco/mujoco_env.h"

namespace rlzoo {

struct GenericMjcfConfig {
  std::string model_path;
  int frame_skip = 1;
  std::vector<std::string> observation{"qpos", "qvel"};
  double clip_velocity = 0.0;
  double reset_noise_scale = 0.0;
  double forward_reward_weight = 0.0;
  std::string forward_body;
  double ctrl_cost_weight = 0.0;
  double healthy_reward = 0.0;
  std::vector<double> healthy_z_range;
  std::int64_t healthy_z_index = 2;
  bool terminate_when_unhealthy = false;
  static void describe(Fields<GenericMjcfConfig>& f);
};

class GenericMjcfEnv final : public MujocoEnv {
 public:
  static constexpr const char* kId = "MJCF-v0";
  // What a reward hook sees: the action and the state before and after the step.
  struct StepContext {
    std::span<const float> action;
    std::span<const double> qpos_before;
    double x_velocity;  // of forward_body (or qpos[0]) over the step
  };
  using RewardHook = std::function<double(const GenericMjcfEnv& env, const StepContext& step)>;
  using TerminationHook = std::function<bool(const GenericMjcfEnv& env)>;

  explicit GenericMjcfEnv(GenericMjcfConfig config);
  void set_reward_hook(RewardHook hook) { reward_hook_ = std::move(hook); }
  void set_termination_hook(TerminationHook hook) { termination_hook_ = std::move(hook); }
  bool is_healthy() const;
  const GenericMjcfConfig& config() const { return config_; }

  // One observation source: field, [begin, end) of its values.
  struct Slice {
    std::string field;
    int begin = 0, end = 0;
  };

 protected:
  void write_observation(Bytes obs) const override;
  void reset_model(Rng& rng) override;
  StepResult step_task(ConstBytes action, Bytes obs) override;

 private:
  GenericMjcfConfig config_;
  std::vector<Slice> slices_;
  int forward_body_ = -1;
  std::vector<double> qpos_before_;
  RewardHook reward_hook_;
  TerminationHook termination_hook_;
};

}  // namespace rlzoo
