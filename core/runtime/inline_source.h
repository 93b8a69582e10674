// The inline backend of the runtime: the learner's own thread is the one actor. Each
// next_round() steps the caller's envs with the caller's policy for one trajectory, in place of
// an actor thread and a queue, so an algorithm's synchronous loop is the runtime's one-actor
// case: the same policy, trajectory and learn_round() as on actor threads, with no thread,
// queue or parameter replica between them.
//
//   InlineTrajectorySource source(venv, policy, {.steps_per_round = n_steps});
//   run_learner(source, learner);
//
// The envs must already be reset; their episodes, and the policy's per-env state, go on from
// one round (and one source) to the next. A round has steps_per_round steps, or fewer where
// round_steps() says so (a learner that stops part-way through a cycle at its step target).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "core/runtime/actor_loop.h"
#include "core/runtime/learner.h"

namespace rlzoo {

struct InlineSourceOptions {
  std::int64_t steps_per_round = 1;
  // Steps of the next round (1 ... steps_per_round), asked before each; unset: steps_per_round.
  std::function<std::int64_t()> round_steps;
  // Per env, 1 where the current observation starts an episode (what the policy's first batch
  // sees); empty: every row does.
  std::vector<std::uint8_t> episode_starts;
};

class InlineTrajectorySource : public TrajectorySource {
 public:
  InlineTrajectorySource(VectorEnv& envs, ActorPolicy& policy, InlineSourceOptions options);
  // The next trajectory, as a round of one actor (actor 0, env offset 0). Nothing once stop()
  // was called or the policy's evaluator shut down.
  std::optional<Trajectory> next_round() override;
  void recycle(Trajectory trajectory) override { spare_ = std::move(trajectory); }
  void stop() { stop_.request_stop(); }
  // Where the envs' episodes stand after the last round (the flags the next batch will see).
  const std::vector<std::uint8_t>& episode_starts() const { return stream_.episode_starts; }

 private:
  VectorEnv* envs_;
  ActorPolicy* policy_;
  InlineSourceOptions options_;
  ActorStreamState stream_;
  StopSource stop_;
  std::uint64_t sequence_ = 0;
  std::optional<Trajectory> spare_;
};

}  // namespace rlzoo
