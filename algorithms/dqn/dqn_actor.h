// DQN's acting half for actor threads (runtime.actors > 0): epsilon-greedy over Q-values that
// a BatchEvaluator computes (the actor's own network replica or the shared inference server).
//
// Epsilon follows the preset's linear schedule, evaluated at the global env step the actor's
// step corresponds to (every actor steps in lockstep rounds, so step s of any actor is global
// step start + s * total_envs), then spread over actors Ape-X style (dqn_actor_exploration_rate).
// Before learning_starts every action is uniformly random, as in the synchronous loop. Each env
// has its own random stream keyed by its global index, so exploration does not depend on how
// envs are split over actors; on the inline backend (the learner's thread as the one actor)
// every row draws from the agent's own stream instead, in row order, so that a checkpoint holds
// it. Legal-action masks are honoured.
#pragma once

#include <memory>
#include <vector>

#include "algorithms/dqn/dqn_config.h"
#include "core/common/rng.h"
#include "core/runtime/actor_policy.h"
#include "core/spaces/space.h"

namespace rlzoo {

struct DqnActingSchedule {
  std::int64_t start_timesteps = 0;  // the agent's num_timesteps when the fleet started
  std::int64_t total_timesteps = 0;  // the preset's n_timesteps (the epsilon schedule's span)
  std::int64_t total_envs = 1;       // envs over all actors
  int actor = 0;
  int actors = 1;
  std::uint64_t seed = 0;            // exploration streams: derive_seed(seed, global env index)
  Rng* shared_stream = nullptr;      // set: every row draws from it instead (the inline backend)
};

class DqnActorPolicy : public ActorPolicy {
 public:
  // q_values: observation rows -> action_space.n() float Q-values per row.
  DqnActorPolicy(std::shared_ptr<BatchEvaluator> q_values, const Space& action_space, const DqnConfig& config,
                 const DqnActingSchedule& schedule);
  bool act(const ActBatch& batch) override;
  // Epsilon at the actor's vector step `step`.
  double exploration_rate(std::int64_t step) const;

 private:
  Rng& stream(std::int64_t env);

  std::shared_ptr<BatchEvaluator> q_values_;
  std::int64_t n_, start_;
  DqnConfig cfg_;
  DqnActingSchedule schedule_;
  std::int64_t first_env_ = -1;
  std::vector<Rng> rngs_;                 // one per env of the actor's slice
  std::vector<std::uint8_t> greedy_;      // rows that act greedily this step
  std::vector<std::byte> greedy_obs_;
  std::vector<float> q_;
};

}  // namespace rlzoo
