// The learner's side of the runtime: where rounds of trajectories come from, and what
// consumes them.
//
//   TrajectorySource: rounds in a deterministic order (ActorFleet in one process; a remote
//                     fleet over gRPC later), plus a way to hand storage back.
//   Learner:          consumes a round, updates, publishes parameters (to a ParameterStore
//                     its actors read), and says whether to go on.
//   run_learner():    the loop between them, on the calling thread.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>

#include "core/runtime/trajectory.h"

namespace rlzoo {

class TrajectorySource {
 public:
  virtual ~TrajectorySource() = default;
  // The next round (every actor's next trajectory side by side), or nothing once the source
  // stopped (interrupted, closed). Throws an actor's error.
  virtual std::optional<Trajectory> next_round() = 0;
  // Storage the learner is done with, for reuse.
  virtual void recycle(Trajectory) {}
};

class Learner {
 public:
  virtual ~Learner() = default;
  // Consumes one round; false: stop (the target step count was reached, a callback asked).
  virtual bool learn_from(const Trajectory& round) = 0;
};

// A Learner from a function (algorithms keep their state in the agent).
class FunctionLearner : public Learner {
 public:
  explicit FunctionLearner(std::function<bool(const Trajectory&)> fn) : fn_(std::move(fn)) {}
  bool learn_from(const Trajectory& round) override { return fn_(round); }

 private:
  std::function<bool(const Trajectory&)> fn_;
};

// Feeds rounds to the learner until it says stop or the source runs dry. Returns the rounds
// consumed.
std::int64_t run_learner(TrajectorySource& source, Learner& learner);

}  // namespace rlzoo
