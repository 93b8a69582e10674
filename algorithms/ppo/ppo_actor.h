// PPO's acting half for actor threads and processes: on-policy, so before trajectory k an actor
// waits for the parameters the learner published after round k - 1 (version k + 1; the learner
// publishes version 1 before the actors start). A BatchEvaluator (the actor's own replica or the
// shared inference server) samples the actions and returns, per row, [sampled action (d floats;
// 1 for Discrete), log-probability, value]; these start the trajectory's extras, and the env
// gets the action as int64 (Discrete) or clipped to the action space's bounds (Box). With
// legal-action masks, an input row is the observation followed by the mask.
//
// A recurrent policy (layout.state_floats > 0) keeps each of its envs' RNN state here, between
// steps and rounds. An input row then ends with [episode start (0 or 1), state] as float32, the
// evaluator also returns the next state, and the extras go on with [episode start, state before
// the step], so that the learner re-runs each round from the states the actor had.
//
// With normalize_obs (layout.normalized_obs > 0, float32 or float64 Box observations) the actor starts each
// trajectory from the observation statistics published with its parameters (the last three
// tensors of the snapshot: mean, var, count) and folds in its envs' observations step by step
// before normalising them, as the inline loop does; the evaluator sees normalised observations
// and the extras end with them, for the learner to train on.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "rl/normalizers.h"
#include "core/runtime/actor_policy.h"
#include "core/runtime/parameter_store.h"
#include "core/spaces/space.h"
#include "core/torch/module_parameters.h"

namespace rlzoo {

struct PpoActorLayout {
  std::size_t mask_size = 0;        // legal-action flags per row (0 without masks)
  std::size_t state_floats = 0;     // one env's recurrent state (0: feed-forward)
  std::int64_t normalized_obs = 0;  // observation floats normalised on the actor (0: none)
  double clip_obs = 10.0, obs_epsilon = 1e-8;
  // Floats per row of a trajectory's extras: [action (action_floats), log-prob, value]
  // (+ [start, state]) (+ normalised observation).
  std::size_t extras(std::size_t action_floats) const {
    return action_floats + 2 + (state_floats ? 1 + state_floats : 0) + static_cast<std::size_t>(normalized_obs);
  }
};

class PpoActorPolicy : public ActorPolicy {
 public:
  // `store`: the learner's parameters (waited on per trajectory unless !wait_for_rounds: then
  // the newest are taken, for actor processes whose store the fleet client keeps fresh).
  PpoActorPolicy(std::shared_ptr<BatchEvaluator> evaluator, const ModuleParameterStore& store,
                 const Space& action_space, const PpoActorLayout& layout, bool wait_for_rounds = true);
  std::size_t num_extras() const override { return layout_.extras(action_floats_); }
  std::uint64_t begin_trajectory(std::uint64_t sequence, const StopSource& stop) override;
  bool act(const ActBatch& batch) override;
  // Recurrent policies: each env's state to go on from (rows x state_floats, in env order);
  // without it every env starts from zeros.
  void set_recurrent_state(std::span<const float> rows) { state_.assign(rows.begin(), rows.end()); }

 private:
  std::shared_ptr<BatchEvaluator> evaluator_;
  ParameterClient<ParameterSnapshot> client_;
  Space action_space_;
  std::size_t action_floats_;
  PpoActorLayout layout_;
  bool wait_for_rounds_;
  std::optional<ObservationNormalizer> obs_norm_;
  std::vector<float> low_, high_;
  std::vector<std::byte> in_;
  std::vector<float> out_, state_;  // the evaluator's rows; each env's state (rows x state_floats)
  std::vector<std::byte> normalized_;  // the normalised observation rows, in the space's dtype
};

}  // namespace rlzoo
