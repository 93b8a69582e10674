// In-process actors: N threads, each stepping its own slice of envs with its own policy, all
// feeding one bounded trajectory queue; the learner (the thread that owns the fleet) takes
// them in rounds.
//
//   ActorFleet fleet(options, make_envs_for_actor, make_policy_for_actor);
//   fleet.start();
//   run_learner(fleet, learner);          // or: while (auto round = fleet.next_round()) ...
//   fleet.stop();                                                        // or let it go out of scope
//
// Rounds are deterministic: round k holds sequence k of actor 0, 1, ..., N-1 side by side,
// whatever order the threads finished in. With envs seeded by global index (env g gets
// seed + g) and per-env random streams in the policy, a learner sees the same batches from 1
// actor with N*M envs as from N actors with M envs each.
//
// Back-pressure is per actor: an actor may hand over trajectory k only when the learner has
// taken its trajectories up to k - queue_capacity, so a fast actor never runs away from a
// slow one and no more than actors * queue_capacity trajectories wait anywhere. All actors
// share one bounded MPMC queue (the transport a remote fleet replaces).
//
// next_round() returns nothing when the fleet stopped: after stop(), after SIGINT/SIGTERM while
// a SignalStop is alive (interrupted() is then true), or after an actor failed, in which case
// it throws that actor's ThreadError instead.
#pragma once

#include <functional>
#include <condition_variable>
#include <map>
#include <mutex>
#include <memory>
#include <optional>
#include <vector>

#include "core/runtime/actor_loop.h"
#include "core/runtime/actor_policy.h"
#include "core/runtime/bounded_queue.h"
#include "core/runtime/learner.h"
#include "core/runtime/thread_group.h"
#include "core/runtime/trajectory.h"
#include "core/vector/vector_env.h"

namespace rlzoo {

struct ActorFleetOptions {
  int actors = 1;
  std::int64_t envs_per_actor = 1;
  std::int64_t steps_per_trajectory = 128;
  std::size_t queue_capacity = 2;           // per actor
  std::optional<std::uint64_t> reset_seed;  // env g is reset with reset_seed + g
  std::uint64_t first_sequence = 0;
  int actor_nice = 0;  // added to each actor thread's nice value (runtime.actor_nice)
};

class ActorFleet : public TrajectorySource {
 public:
  using EnvFactory = std::function<std::unique_ptr<VectorEnv>(int actor)>;
  using PolicyFactory = std::function<std::unique_ptr<ActorPolicy>(int actor)>;

  // Builds every actor's envs and policy on the calling thread (errors surface here).
  ActorFleet(const ActorFleetOptions& options, const EnvFactory& make_envs, const PolicyFactory& make_policy);
  ~ActorFleet() override;  // stop()

  // Starts the actor threads.
  void start();
  // The next round, merged along the env axis (see merge_envs). Blocks for it.
  std::optional<Trajectory> next_round() override;
  // The unmerged trajectories of the next round, in actor order.
  std::optional<std::vector<Trajectory>> next_round_parts();
  // The next trajectory of any actor, in arrival order (for learners that need no rounds).
  // Do not mix with next_round() on one fleet.
  std::optional<Trajectory> next_trajectory();
  // Gives a trajectory the learner is done with back for reuse (saves the allocation and
  // zeroing of a fresh one); trajectories of another shape are dropped.
  void recycle(Trajectory trajectory) override;
  // Stops the actors (each finishes its env step) and joins them. Rethrows an actor's error
  // that was not reported yet.
  void stop();
  // Runs `wake` when the fleet stops (to close a server the policies wait on, ...).
  void on_stop(std::function<void()> wake) { threads_.stop_source().on_stop(std::move(wake)); }
  const StopSource& stop_source() const { return threads_.stop_source(); }
  bool interrupted() const { return interrupted_; }

  int actors() const { return options_.actors; }
  std::int64_t total_envs() const { return options_.actors * options_.envs_per_actor; }
  VectorEnv& envs(int actor) { return *envs_[static_cast<std::size_t>(actor)]; }
  ActorPolicy& policy(int actor) { return *policies_[static_cast<std::size_t>(actor)]; }
  // Trajectories pushed by all actors so far / taken by the learner.
  std::uint64_t trajectories_pushed() const { return queue_.pushed(); }
  std::uint64_t trajectories_taken() const { return queue_.popped(); }
  std::size_t queue_capacity() const { return queue_.capacity(); }

 private:
  void hand_over(int actor);  // counts a trajectory as taken (frees a credit)
  // Pops with bounded waits so that a signal (which cannot wake a condition variable) is seen
  // promptly; nothing when stopped.
  std::optional<Trajectory> pop();

  ActorFleetOptions options_;
  std::vector<std::unique_ptr<VectorEnv>> envs_;
  std::vector<std::unique_ptr<ActorPolicy>> policies_;
  BoundedQueue<Trajectory> queue_;
  class CreditSink;
  std::vector<std::unique_ptr<CreditSink>> sinks_;
  // Trajectories of each actor handed to the learner (guarded by credit_mutex_).
  std::mutex credit_mutex_;
  std::condition_variable credit_;
  std::vector<std::uint64_t> taken_;
  std::mutex pool_mutex_;
  std::vector<Trajectory> pool_;
  std::optional<Trajectory> reuse(const TrajectoryShape& shape);
  // Trajectories that arrived ahead of their round, keyed by (sequence, actor).
  std::map<std::pair<std::uint64_t, int>, Trajectory> early_;
  std::uint64_t next_sequence_;
  bool interrupted_ = false;
  bool started_ = false;
  ThreadGroup threads_;  // last: joined before the envs and policies it uses are destroyed
};

}  // namespace rlzoo
