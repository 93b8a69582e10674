// An actor process of a fleet: connects to a learner, builds its envs and policy from the
// learner's preset (the algorithm's Agent::actor_role()), and sends trajectories until the
// learner finishes.
//
//   rlzoo actor --connect 127.0.0.1:50051 [--token-file F] [--actor-id K]
//
// Reliability: every call has a deadline; a learner that cannot be reached is retried with
// exponential back-off (0.1 s doubling to 5 s, with jitter) for up to max_idle_ms; a learner
// that restarted (another learner_run) is registered with again and its parameters fetched
// whatever their version; heartbeats keep the registration alive while envs are slow. Refusals
// that retrying cannot fix (wrong token, protocol or spec mismatch) end the actor with a
// UserError naming the reason.
#pragma once

#include <cstdint>

#include "distributed/fleet_options.h"

namespace rlzoo {

struct FleetActorResult {
  std::int64_t trajectories = 0;   // accepted by the learner
  std::int64_t refused = 0;        // sent but not accepted (stale, busy, ...)
  bool learner_finished = false;
  bool gave_up = false;            // the learner was unreachable for max_idle_ms
  bool interrupted = false;        // SIGINT/SIGTERM
};

FleetActorResult run_fleet_actor(const FleetActorOptions& options);

}  // namespace rlzoo
