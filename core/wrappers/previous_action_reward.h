// Appends the previous action and reward to the observation: the inputs of RL² (Duan et al.
// 2016; Wang et al. 2016), whose recurrent policy must infer the task from what its actions
// earned. Observation = [inner observation (flattened float Box), previous action (one-hot for
// Discrete, the vector for a float Box), previous reward]; all zeros after a reset.
// In a preset: `env_kwargs: {wrappers: [previous_action_reward]}` (core/wrappers/wrapper_list.h).
#pragma once

#include <vector>

#include "core/wrappers/wrapper.h"

namespace rlzoo {

class PreviousActionReward : public Wrapper {
 public:
  // The observation keeps the inner one's dtype (float32 or float64).
  // Throws UserError unless the observation is a float Box and the action Discrete or a float Box.
  explicit PreviousActionReward(std::unique_ptr<Env> env);

 protected:
  void do_reset(std::optional<std::uint64_t> seed, Bytes obs) override;
  StepResult do_step(ConstBytes action, Bytes obs) override;
  nlohmann::json do_save_state() const override;
  void do_load_state(const nlohmann::json& state, Bytes obs) override;

 private:
  void write(Bytes obs) const;
  std::vector<std::byte> inner_obs_;
  std::vector<double> extra_;  // previous action entries, then the previous reward
};

}  // namespace rlzoo
