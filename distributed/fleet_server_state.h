// Internal to distributed/: the state a GrpcFleet shares between its gRPC service
// (fleet_service.cpp: the RPC handlers) and its TrajectorySource (fleet_server.cpp: the rounds
// the learner takes). Every field that several threads touch is atomic or under `mutex`.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>

#include "core/runtime/bounded_queue.h"
#include "core/runtime/stop.h"
#include "distributed/fleet_server.h"
#include "distributed/proto/fleet.grpc.pb.h"

namespace rlzoo {

using FleetClock = std::chrono::steady_clock;

// A checked trajectory waiting for the learner, with the run that uploaded it.
struct FleetQueued {
  Trajectory trajectory;
  std::uint64_t run = 0;
};

// A random 64-bit number from the OS (run ids, reset seeds).
std::uint64_t fleet_random_u64();

struct GrpcFleet::State {
  FleetServerOptions options;
  std::uint64_t learner_run = fleet_random_u64();
  FleetSpec spec;
  const ModuleParameterStore* parameters = nullptr;
  std::atomic<std::int64_t> learner_timesteps{0};
  std::atomic<bool> finished{false};
  StopSource stop;
  std::unique_ptr<BoundedQueue<FleetQueued>> queue;
  int port = 0;

  struct Run {
    int actor = 0;
    std::string host;
    FleetClock::time_point last_seen;
    bool ended = false;
    bool collecting = true;  // between a parameters reply and its next upload
    std::uint64_t held = 0;  // the parameter version the actor holds (from its last parameters reply)
    // Uploads are retried after a lost reply: a sequence number at or below the highest
    // accepted one, or one being received right now, is that retry, not new data.
    std::optional<std::uint64_t> highest_accepted;
    std::set<std::uint64_t> receiving;
  };
  mutable std::mutex mutex;  // runs, stats, the parameter cache
  std::map<std::uint64_t, Run> runs;
  FleetStats stats;
  std::uint64_t cached_version = 0;
  std::shared_ptr<const fleet::ParametersReply> cached;
  std::shared_ptr<const std::string> cached_wire;  // `cached` encoded as a RoundsReply's field 2
  std::map<std::uint64_t, std::uint64_t> accepted_by_version;
  std::set<std::uint64_t> told_finished;  // runs that got a reply saying the learner finished
  std::condition_variable told_cv;

  // Whether a reply to `run_id` says that training has finished (read once, so that a reply's
  // flag and its reason agree); when it does, remembers that the run was told.
  bool tell_finished(std::uint64_t run_id) {
    if (!finished) return false;
    {
      std::lock_guard lock(mutex);
      told_finished.insert(run_id);
    }
    told_cv.notify_all();
    return true;
  }
  // After training: waits (up to `grace`) until every live run was told that it is over, so
  // that actors stop instead of retrying a learner that is gone.
  void wait_until_told(std::chrono::milliseconds grace);
  bool all_told() const;  // takes `mutex`

  // Called when the unary Upload queued a trajectory: wakes the learner's thread where it waits
  // on the Rounds streams rather than on the queue (fleet_rounds.h).
  void queued() {
    std::lock_guard lock(wake_mutex);
    if (wake_learner) wake_learner();
  }
  std::mutex wake_mutex;
  std::function<void()> wake_learner;  // set and cleared under wake_mutex

  // Marks a run ended (its queued trajectories will be discarded) and logs why. Under `mutex`.
  void end_run(std::uint64_t run_id, const std::string& why);
  // Counts and logs a refused message.
  void reject(const std::string& kind, const std::string& detail, std::uint64_t run_id);
  int live_runs() const;  // takes `mutex`
  bool live(std::uint64_t run_id) const {  // under `mutex`
    const auto it = runs.find(run_id);
    return it != runs.end() && !it->second.ended;
  }
  void touch(std::uint64_t run_id) {
    std::lock_guard lock(mutex);
    const auto it = runs.find(run_id);
    if (it != runs.end()) it->second.last_seen = FleetClock::now();
  }
  // On-policy: whether the round at the newest version still needs trajectories that no other
  // live actor is collecting or will collect, so that a waiting actor should collect another one
  // with the parameters it holds (an actor died or is slow) rather than wait for a version that
  // the learner cannot make without it. An actor counts as collecting until its upload is
  // queued (not merely received), and an actor that holds an older version counts too: it will
  // collect one with the newest next, even before it has asked for it. Counting less made a
  // fast actor collect a second trajectory while the other's was still on its way, and the
  // learner then dropped one of the two as stale.
  bool round_needs_more(std::uint64_t run_id);
  void set_collecting(std::uint64_t run_id, bool collecting) {
    std::lock_guard lock(mutex);
    const auto it = runs.find(run_id);
    if (it != runs.end()) it->second.collecting = collecting;
  }
  // After a parameters reply: the run collects with `held` next.
  void set_collecting_with(std::uint64_t run_id, std::uint64_t held) {
    std::lock_guard lock(mutex);
    const auto it = runs.find(run_id);
    if (it == runs.end()) return;
    it->second.collecting = true;
    it->second.held = held;
  }

  // Ends the runs silent for longer than the heartbeat timeout.
  void expire_silent_runs();
  // The newest parameters as a reply, encoded once per version.
  std::shared_ptr<const fleet::ParametersReply> parameters_reply();
  // `reply` serialized as field 2 (`parameters`) of a RoundsReply: the bytes every Rounds stream
  // sends, kept once per version.
  std::shared_ptr<const std::string> parameters_wire(const std::shared_ptr<const fleet::ParametersReply>& reply);
  // Writes the stats as JSON to options.stats_file (if set), atomically.
  void write_stats() const;
};

// The service with Rounds left to a completion queue, as raw bytes: a reply's parameters are
// encoded once per version and sent to every actor without a copy (fleet_rounds.h).
using FleetServiceBase = fleet::Fleet::WithRawMethod_Rounds<fleet::Fleet::Service>;

// A fleet's state before it serves: the queue sized from `options` (or two rounds).
std::shared_ptr<GrpcFleet::State> make_fleet_state(const FleetServerOptions& options, const FleetSpec& spec,
                                                   const ModuleParameterStore& parameters,
                                                   std::int64_t learner_timesteps);

// The learner's side of a fleet: rounds of trajectories from `state`'s queue and, with
// `rounds_cq` (the server's completion queue for Rounds), from the Rounds streams, which the
// learner's thread serves while it waits (fleet_rounds.h). Destroying it tells the actors that
// training is over, then shuts `server` down (the gRPC server that calls `service`; null when a
// test calls the service's handlers itself, from plain threads).
std::unique_ptr<TrajectorySource> make_fleet_source(std::shared_ptr<GrpcFleet::State> state,
                                                    std::unique_ptr<grpc::Server> server,
                                                    std::unique_ptr<FleetServiceBase> service,
                                                    std::unique_ptr<grpc::ServerCompletionQueue> rounds_cq = nullptr);

}  // namespace rlzoo
