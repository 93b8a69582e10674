// The experience backends an algorithm's run_training() draws rounds from, built the same way
// for every algorithm from the preset's `runtime:` section. The algorithm supplies its acting
// policy (an ActorPolicy over a BatchEvaluator) and its learn_round(); the backend supplies
// the rounds:
//   inline     the learner's thread steps its own envs (InlineTrajectorySource), the policy
//              evaluating the learner's own network: the synchronous loop as the one-actor case;
//   threads    runtime.actors actor threads, each with a network replica (or the shared
//              inference server) that follows the parameters the learner publishes;
//   processes  the remote actor fleet (distributed/), fed the same published parameters.
#pragma once

#include <functional>
#include <memory>

#include "rl/agent.h"
#include "rl/preset.h"
#include "rl/training_run.h"
#include "core/runtime/actor_fleet.h"
#include "core/runtime/batching_server.h"
#include "core/runtime/inline_source.h"
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

// Actors, envs per actor and queue capacity from the preset; envs reset from
// seed + num_timesteps (a later learn() call or a resumed run starts new episodes).
ActorFleetOptions preset_fleet_options(const PresetConfig& preset, std::int64_t steps_per_trajectory,
                                       std::int64_t num_timesteps);
// Each actor's envs: runtime.envs_per_actor of the preset's env (with its env_kwargs).
ActorFleet::EnvFactory preset_env_factory(const PresetConfig& preset);

// What the threads backend needs from an algorithm.
struct ActorThreadsSetup {
  std::int64_t steps_per_trajectory = 1;
  // A network replica following the learner's parameter store (one per actor thread, or the
  // one the inference server runs when runtime.inference.max_batch > 0).
  std::function<std::shared_ptr<BatchEvaluator>()> make_replica;
  // Actor `actor`'s policy, acting through `evaluator` (its replica or the server).
  std::function<std::unique_ptr<ActorPolicy>(std::shared_ptr<BatchEvaluator> evaluator, int actor)> make_policy;
};

// The threads backend from the preset: the optional inference server, runtime.actors actor
// threads on runtime.envs_per_actor envs each (reset from seed + num_timesteps), the round loop
// (run_actor_training), and everything stopped again; `store` is woken on the way out.
void run_threads_training(Agent& agent, TrainingRun& run, ModuleParameterStore& store, const ActorThreadsSetup& setup,
                          const std::function<bool(const Trajectory&)>& learn_round);

// The inline backend: learn_round(round) for every round of `source` (the learner's own envs),
// each followed by run.end_cycle(); returns when learn_round says stop.
void run_inline_training(Agent& agent, TrainingRun& run, InlineTrajectorySource& source,
                         const std::function<bool(const Trajectory&)>& learn_round);

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
