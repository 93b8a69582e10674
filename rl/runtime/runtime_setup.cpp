#include "rl/runtime/runtime_setup.h"

namespace rlzoo {

namespace {

// One inference server around `shared` (which then runs on the server thread only) when
// runtime.inference.max_batch > 0; null otherwise.
std::unique_ptr<BatchingServer> make_inference_server(const RuntimeConfig& runtime,
                                                      const std::function<std::shared_ptr<BatchEvaluator>()>& shared) {
  if (runtime.inference.max_batch <= 0) return nullptr;
  std::shared_ptr<BatchEvaluator> eval = shared();
  const std::size_t in = eval->in_row_bytes(), out = eval->out_row_bytes();
  return std::make_unique<BatchingServer>(
      in, out, [eval](ConstBytes rows_in, std::int64_t rows, Bytes rows_out) { eval->evaluate(rows_in, rows, rows_out); },
      BatchingOptions{runtime.inference.max_batch, runtime.inference.max_wait_us, runtime.actors});
}

}  // namespace

ActorFleetOptions preset_fleet_options(const PresetConfig& preset, std::int64_t steps_per_trajectory,
                                       std::int64_t num_timesteps) {
  ActorFleetOptions o;
  o.actors = preset.runtime.actors;
  o.envs_per_actor = preset.runtime.envs_per_actor;
  o.steps_per_trajectory = steps_per_trajectory;
  o.queue_capacity = static_cast<std::size_t>(preset.runtime.queue_capacity);
  o.actor_nice = preset.runtime.actor_nice;
  o.reset_seed = static_cast<std::uint64_t>(preset.seed) + static_cast<std::uint64_t>(num_timesteps);
  return o;
}

ActorFleet::EnvFactory preset_env_factory(const PresetConfig& preset) {
  return [env = preset.env, n = preset.runtime.envs_per_actor, kwargs = preset.env_kwargs](int) {
    return make_vector_env(env, n, 1, kwargs);
  };
}

void run_round_training(Agent& agent, TrainingRun& run, TrajectorySource& source,
                        const std::function<bool(const Trajectory&)>& learn_round) {
  FunctionLearner learner([&](const Trajectory& round) {
    run.count_actor_batch();
    const bool go_on = learn_round(round);
    run.end_cycle(agent.num_timesteps());
    return go_on;
  });
  run_learner(source, learner);  // ends early when interrupted (SIGINT/SIGTERM)
}

void run_threads_training(Agent& agent, TrainingRun& run, ModuleParameterStore& store, const ActorThreadsSetup& setup,
                          const std::function<bool(const Trajectory&)>& learn_round) {
  const PresetConfig& preset = agent.preset();
  std::unique_ptr<BatchingServer> server = make_inference_server(preset.runtime, setup.make_replica);
  ActorFleet fleet(preset_fleet_options(preset, setup.steps_per_trajectory, agent.num_timesteps()),
                   preset_env_factory(preset), [&](int actor) -> std::unique_ptr<ActorPolicy> {
                     std::shared_ptr<BatchEvaluator> evaluator =
                         server ? std::make_shared<ServedEvaluator>(*server, server->in_row_bytes(),
                                                                    server->out_row_bytes())
                                : setup.make_replica();
                     return setup.make_policy(std::move(evaluator), actor);
                   });
  fleet.on_stop([&] {
    if (server) server->stop();
    store.wake();
  });
  run_actor_training(agent, run, fleet, server.get(), learn_round);
}

void run_inline_training(Agent& agent, TrainingRun& run, InlineTrajectorySource& source,
                         const std::function<bool(const Trajectory&)>& learn_round) {
  FunctionLearner learner([&](const Trajectory& round) {
    const bool go_on = learn_round(round);
    run.end_cycle(agent.num_timesteps());
    return go_on;
  });
  run_learner(source, learner);
}

void run_actor_training(Agent& agent, TrainingRun& run, ActorFleet& fleet, const BatchingServer* server,
                        const std::function<bool(const Trajectory&)>& learn_round) {
  fleet.start();
  run_round_training(agent, run, fleet, learn_round);
  fleet.stop();
  Logger& log = run.logger();
  log.record("runtime/trajectories", static_cast<double>(fleet.trajectories_taken()));
  if (server && server->batches() > 0)
    log.record("runtime/mean_inference_batch",
               static_cast<double>(server->rows_served()) / static_cast<double>(server->batches()));
}

void run_remote_training(Agent& agent, TrainingRun& run, const ActorRole& role, const ModuleParameterStore& parameters,
                         const std::function<bool(const Trajectory&)>& learn_round) {
  RemoteFleet& fleet = *agent.remote_fleet();
  fleet.set_learner_timesteps(agent.num_timesteps());
  std::unique_ptr<TrajectorySource> source = fleet.open(fleet_spec(agent, role), parameters);
  run_round_training(agent, run, *source, [&](const Trajectory& round) {
    const bool go_on = learn_round(round);
    fleet.set_learner_timesteps(agent.num_timesteps());
    return go_on;
  });
}

}  // namespace rlzoo
