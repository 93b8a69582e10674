// What an algorithm gives a fleet of actor processes (distributed/), without including it.
//
// Actor process: builds the agent from the learner's preset, asks it for actor_role(), makes
// its envs and policy from the role and refreshes the role's parameter store from the learner.
// Learner: Agent::set_remote_fleet(fleet) before learn(); an algorithm that supports fleets then
// opens the fleet (a TrajectorySource of rounds) instead of starting actor threads, and
// publishes its parameters into the store the fleet serves.
//
// Both sides derive the same FleetSpec from the resolved preset (fleet_spec()), so a mismatch
// of env, spaces, algorithm, policy or trajectory shape shows as different spec hashes.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "core/runtime/actor_policy.h"
#include "core/runtime/learner.h"
#include "core/runtime/trajectory.h"
#include "core/spaces/space.h"
#include "core/torch/module_parameters.h"

namespace rlzoo {

class Agent;

struct ActorRole {
  // One actor's trajectory: runtime.envs_per_actor envs, steps_per_trajectory steps.
  TrajectoryShape shape;
  // On-policy: a round may only hold trajectories made with the learner's newest parameters
  // (PPO); off-policy learners take any (DQN).
  bool on_policy = false;
  // The policy of actor `actor` (envs actor * envs_per_actor ...), acting with whatever `store`
  // holds. It never waits for parameters itself: the actor process refreshes the store.
  std::function<std::unique_ptr<ActorPolicy>(const ModuleParameterStore& store, int actor)> make_policy;
};

struct FleetSpec {
  TrajectoryShape shape;
  Space observation_space;       // to check uploaded observations
  bool on_policy = false;
  int round_size = 1;            // trajectories per round: the preset's runtime.actors
  std::string preset_yaml;       // the learner's resolved preset, sent to actors
  std::string spec_hash;         // hex; see fleet_spec()
};

// The learner's end of a remote fleet (implemented in distributed/).
class RemoteFleet {
 public:
  virtual ~RemoteFleet() = default;
  // Starts serving `parameters` (the learner publishes into it; version 1 before the first
  // round) to actors that present spec.spec_hash, and returns their trajectories in rounds of
  // spec.round_size. The source returns nothing once stopped (SIGINT/SIGTERM, close()).
  virtual std::unique_ptr<TrajectorySource> open(const FleetSpec& spec, const ModuleParameterStore& parameters) = 0;
  // The learner's env steps so far (sent to actors with parameters, for exploration schedules).
  virtual void set_learner_timesteps(std::int64_t steps) = 0;
};

// The spec both sides compute from an agent made from the same preset.
FleetSpec fleet_spec(const Agent& agent, const ActorRole& role);

}  // namespace rlzoo
