// The actor loop: drives one actor's slice of envs with its policy, cuts the stream into
// trajectories of `steps_per_trajectory` vector steps and sends them out.
//
//   run_actor_loop(venv, policy, sink, {.actor = 1, .env_offset = 4, .steps_per_trajectory = 128}, stop);
//
// Stops between steps when `stop` is requested (a partial trajectory is dropped), when the
// sink is closed, after max_trajectories, or when the policy's evaluator was shut down.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "core/runtime/actor_policy.h"
#include "core/runtime/bounded_queue.h"
#include "core/runtime/stop.h"
#include "core/runtime/trajectory.h"
#include "core/vector/vector_env.h"

namespace rlzoo {

class TrajectorySink {
 public:
  virtual ~TrajectorySink() = default;
  // Hands a finished trajectory on; may block (back-pressure). False: closed, stop.
  virtual bool push(Trajectory trajectory) = 0;
  // Storage for the next trajectory: a recycled one of this shape when the sink keeps any
  // (its contents are overwritten), else a new one.
  virtual Trajectory make(const TrajectoryShape& shape) { return Trajectory(shape); }
};

// The in-process transport: a bounded queue shared by all actors.
class QueueSink : public TrajectorySink {
 public:
  explicit QueueSink(BoundedQueue<Trajectory>& queue) : queue_(&queue) {}
  bool push(Trajectory trajectory) override { return queue_->push(std::move(trajectory)); }

 private:
  BoundedQueue<Trajectory>* queue_;
};

struct ActorLoopOptions {
  int actor = 0;
  std::int64_t env_offset = 0;          // global index of the slice's env 0
  std::int64_t steps_per_trajectory = 128;
  std::optional<std::uint64_t> reset_seed;  // reset env i with reset_seed + env_offset + i; none: already reset
  std::int64_t max_trajectories = -1;   // -1: until stopped
  std::uint64_t first_sequence = 0;     // sequence number of the first trajectory
};

// Runs on the actor's thread. Returns the number of trajectories sent.
std::int64_t run_actor_loop(VectorEnv& envs, ActorPolicy& policy, TrajectorySink& sink,
                            const ActorLoopOptions& options, const StopSource& stop);

// Where an actor's stream of steps stands between trajectories: which rows start an episode
// (what ActBatch::episode_starts passes on) and the actor's vector steps so far.
struct ActorStreamState {
  std::vector<std::uint8_t> episode_starts;  // one flag per env; empty: every row starts one
  std::int64_t step = 0;
};

// The shape of the trajectories `policy` makes on `envs` (num_steps as given).
TrajectoryShape actor_trajectory_shape(const VectorEnv& envs, const ActorPolicy& policy, std::int64_t num_steps);

// Fills `trajectory` (already of its shape, with actor, sequence, env_offset and
// policy_version set) with trajectory.num_steps() steps of `envs`, acting with `policy`, and
// advances `stream`. False when `stop` was requested between steps or the policy's evaluator
// shut down: the trajectory is then partial. What run_actor_loop does per trajectory, and what
// the inline backend does on the learner's thread.
bool fill_trajectory(VectorEnv& envs, ActorPolicy& policy, Trajectory& trajectory, ActorStreamState& stream,
                     const StopSource& stop);

}  // namespace rlzoo
