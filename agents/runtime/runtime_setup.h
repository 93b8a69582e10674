// What every algorithm's learn() on actor threads builds the same way from the preset's
// `runtime:` section: the optional shared inference server, each actor's evaluator, the fleet
// options and the actors' envs, and the runtime's log keys.
#pragma once

#include <functional>
#include <memory>

#include "agents/agent.h"
#include "agents/preset.h"
#include "agents/training_monitor.h"
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

// The learner side of a learn() on actor threads, on the calling thread: callbacks'
// on_training_start, the fleet started, learn_round(round) for every round (it updates and
// publishes; false: stop) followed by on_rollout_end, the fleet stopped (also when
// interrupted by SIGINT/SIGTERM or when anything throws), the runtime's log keys
// (runtime/trajectories, runtime/mean_inference_batch), the monitor finished, and
// on_training_end.
// The round loop alone: learn_round(round) for every round of `source` (false: stop), then the
// callbacks' on_rollout_end. Returns when the learner stops, the source runs dry or a signal
// arrives.
void run_round_training(Agent& agent, TrajectorySource& source, CallbackList* callbacks,
                        const std::function<bool(const Trajectory&)>& learn_round);

void run_actor_training(Agent& agent, ActorFleet& fleet, const BatchingServer* server, TrainingMonitor& monitor,
                        CallbackList* callbacks, const std::function<bool(const Trajectory&)>& learn_round);

// run_actor_training() with the agent's remote fleet (Agent::set_remote_fleet) as the source:
// the fleet serves `parameters` (which learn_round keeps publishing into) to actor processes
// with the spec fleet_spec(agent, role), and is closed again before the monitor finishes.
void run_remote_training(Agent& agent, const ActorRole& role, const ModuleParameterStore& parameters,
                         TrainingMonitor& monitor, CallbackList* callbacks,
                         const std::function<bool(const Trajectory&)>& learn_round);

}  // namespace rlzoo
