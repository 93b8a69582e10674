// What every algorithm's learn() on actor threads builds the same way from the preset's
// `runtime:` section: the optional shared inference server, each actor's evaluator, the fleet
// options and the actors' envs, and the runtime's log keys.
#pragma once

#include <functional>
#include <memory>

#include "agents/agent.h"
#include "agents/preset.h"
#include "agents/training_run.h"
#include "core/runtime/actor_fleet.h"
#include "core/runtime/batching_server.h"
#include "core/torch/tensor_io.h"

namespace rlzoo {

// Runs make() (which builds a network) without consuming draws from torch's default
// generator: actor replicas must not shift the learner's sampling.
template <class Make>
auto keeping_torch_rng(Make&& make) {
  const std::string state = save_generator_state();
  auto result = make();
  load_generator_state(state, "torch_rng");
  return result;
}

// One inference server around `shared` (which then runs on the server thread only) when
// runtime.inference.max_batch > 0; null otherwise.
std::unique_ptr<BatchingServer> make_inference_server(const RuntimeConfig& runtime,
                                                      const std::function<std::shared_ptr<BatchEvaluator>()>& shared);

// One actor's evaluator: a client of `server` when there is one, else make_replica().
std::shared_ptr<BatchEvaluator> actor_evaluator(BatchingServer* server, std::size_t in_row_bytes,
                                                std::size_t out_row_bytes,
                                                const std::function<std::shared_ptr<BatchEvaluator>()>& make_replica);

// Actors, envs per actor and queue capacity from the preset; envs reset from
// seed + num_timesteps (a later learn() call or a resumed run starts new episodes).
ActorFleetOptions preset_fleet_options(const PresetConfig& preset, std::int64_t steps_per_trajectory,
                                       std::int64_t num_timesteps);
// Each actor's envs: runtime.envs_per_actor of the preset's env (with its env_kwargs).
ActorFleet::EnvFactory preset_env_factory(const PresetConfig& preset);

// The round loop of a run_training() on an actor backend, on the calling thread:
// learn_round(round) for every round of `source` (it updates and publishes; false: stop), each
// followed by run.end_cycle(). Returns when the learner stops, the source runs dry or a signal
// arrives.
void run_round_training(Agent& agent, TrainingRun& run, TrajectorySource& source,
                        const std::function<bool(const Trajectory&)>& learn_round);

// The threads backend: the fleet started, the round loop, the fleet stopped (also when
// interrupted by SIGINT/SIGTERM or when anything throws), and the runtime's log keys
// (runtime/trajectories, runtime/mean_inference_batch).
void run_actor_training(Agent& agent, TrainingRun& run, ActorFleet& fleet, const BatchingServer* server,
                        const std::function<bool(const Trajectory&)>& learn_round);

// The processes backend: the agent's remote fleet (Agent::set_remote_fleet) as the source; it
// serves `parameters` (which learn_round keeps publishing into) to actor processes with the
// spec fleet_spec(agent, role), and is closed again when the round loop ends.
void run_remote_training(Agent& agent, TrainingRun& run, const ActorRole& role, const ModuleParameterStore& parameters,
                         const std::function<bool(const Trajectory&)>& learn_round);

}  // namespace rlzoo
