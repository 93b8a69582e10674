// PPO's acting half for actor threads (runtime.actors > 0): on-policy, so before trajectory k
// an actor waits for the parameters the learner published after round k - 1 (version k + 1;
// the learner publishes version 1 before the actors start). A BatchEvaluator (the actor's own
// replica or the shared inference server) samples the actions and returns, per row,
// [sampled action (d floats; 1 for Discrete), log-probability, value]; these are the
// trajectory's extras, and the env gets the action as int64 (Discrete) or clipped to the
// action space's bounds (Box). With legal-action masks, an input row is the observation
// followed by the mask.
//
// A recurrent policy (state_floats > 0) keeps each of its envs' RNN state here, between steps
// and rounds. An input row then ends with [episode start (0 or 1), state (state_floats)] as
// float32, and the evaluator returns [action, log-probability, value, next state]; the
// trajectory's extras are [action, log-probability, value, episode start, state before the
// step], so the learner re-runs each round's sequences from the state the actor had.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "core/runtime/actor_policy.h"
#include "core/runtime/parameter_store.h"
#include "core/spaces/space.h"
#include "core/torch/module_parameters.h"

namespace rlzoo {

class PpoActorPolicy : public ActorPolicy {
 public:
  // `store`: the learner's parameters (waited on per trajectory unless !wait_for_rounds: then
  // the newest are taken, for actor processes whose store the fleet client keeps fresh);
  // `mask_size`: legal-action flags per row (0 without masks).
  PpoActorPolicy(std::shared_ptr<BatchEvaluator> evaluator, const ModuleParameterStore& store,
                 const Space& action_space, std::size_t mask_size, bool wait_for_rounds = true,
                 std::size_t state_floats = 0);
  std::size_t num_extras() const override { return action_floats_ + 2 + (state_floats_ ? 1 + state_floats_ : 0); }
  std::uint64_t begin_trajectory(std::uint64_t sequence, const StopSource& stop) override;
  bool act(const ActBatch& batch) override;

 private:
  std::shared_ptr<BatchEvaluator> evaluator_;
  ParameterClient<ParameterSnapshot> client_;
  Space action_space_;
  std::size_t action_floats_, mask_size_;
  bool wait_for_rounds_;
  std::size_t state_floats_;
  std::vector<float> low_, high_;
  std::vector<std::byte> in_;
  std::vector<float> out_, state_;  // recurrent: the evaluator's rows; each env's state (rows x state_floats)
};

}  // namespace rlzoo
