// The learner's end of an actor fleet: a gRPC server (distributed/proto/fleet.proto) that
// registers actor processes, serves the parameters the learner publishes and queues the
// trajectories they upload, and the TrajectorySource that hands them to the learner in rounds.
//
//   auto fleet = std::make_shared<GrpcFleet>(options);   // options.listen, token, TLS, limits
//   agent->set_remote_fleet(fleet);
//   agent->learn(n);   // opens the fleet, takes rounds, closes it when done
//
// What the learner never sees: trajectories that fail a check (wrong shape, dtype, size, spec,
// non-finite values; each refusal is logged with its reason and counted), trajectories of a
// run that ended (an actor re-registered with a new run id, or fell silent past the heartbeat
// timeout: its queued trajectories are discarded), and for on-policy learners trajectories
// made with older parameters than the newest (counted as stale).
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "rl/runtime/fleet_role.h"
#include "distributed/fleet_options.h"

namespace rlzoo {

struct FleetStats {
  std::uint64_t registrations = 0;
  std::uint64_t accepted = 0;          // trajectories queued
  std::uint64_t bytes_accepted = 0;    // their size on the wire
  std::uint64_t used = 0;              // trajectories handed to the learner
  std::uint64_t stale = 0;             // on-policy: made with older parameters, dropped
  std::uint64_t discarded_ended = 0;   // queued trajectories of runs that ended, dropped
  std::uint64_t duplicates = 0;        // retried uploads of a trajectory already accepted, ignored
  std::uint64_t streams = 0;           // Rounds streams opened (on-policy actors: one per registration)
  std::uint64_t unauthenticated = 0;   // calls without the right token
  std::uint64_t no_actor_warnings = 0;  // times the learner warned that it waits with no actor connected
  std::map<std::string, std::uint64_t> rejected;  // by reason kind
  std::map<std::uint64_t, std::uint64_t> used_by_run;
  std::map<std::uint64_t, std::string> ended_runs;  // run id -> why it ended
  std::uint64_t used_after_end = 0;  // trajectories of an ended run used later (must stay 0)
};

class GrpcFleet : public RemoteFleet {
 public:
  // Checks the security settings (throws UserError: a non-loopback address without a token,
  // unreadable TLS files) but does not listen yet.
  explicit GrpcFleet(FleetServerOptions options);
  ~GrpcFleet() override;

  std::unique_ptr<TrajectorySource> open(const FleetSpec& spec, const ModuleParameterStore& parameters) override;
  void set_learner_timesteps(std::int64_t steps) override;

  // The port the server listens on (after open()).
  int port() const;
  FleetStats stats() const;

  struct State;  // shared with the service and the source

 private:
  FleetServerOptions options_;
  std::atomic<std::int64_t> learner_timesteps_{0};
  std::shared_ptr<State> state_;
};

}  // namespace rlzoo
