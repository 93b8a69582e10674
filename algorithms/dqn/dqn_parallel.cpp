// DQN with runtime actor threads (preset `runtime.actors > 0`): Ape-X style acting, one
// replay buffer, the learner on the calling thread.
#include <fmt/format.h>

#include "agents/runtime/module_evaluator.h"
#include "agents/runtime/runtime_setup.h"
#include "agents/training_monitor.h"
#include "algorithms/dqn/dqn.h"
#include "algorithms/dqn/dqn_actor.h"
#include "core/runtime/actor_fleet.h"
#include "core/runtime/batching_server.h"
#include "core/torch/module_parameters.h"

namespace rlzoo {

namespace {
constexpr std::uint64_t kActorExplorationStream = 0x41504558;  // "APEX"
}  // namespace

bool DqnAgent::learn_from_round(const Trajectory& round, std::int64_t end, TrainingMonitor& monitor,
                                CallbackList* callbacks) {
  ensure_buffer();
  if (round.num_envs() != buffer_->n_envs())
    throw UserError(fmt::format("dqn: a round of {} envs for a replay buffer of {} envs", round.num_envs(),
                                buffer_->n_envs()));
  bool stop = false;
  std::int64_t collected = 0;
  for (std::int64_t t = 0; t < round.num_steps() && num_timesteps_ < end && !stop; ++t) {
    ++collected;
    const StepEpisodes episodes{round.terminated_at(t), round.truncated_at(t), round.episode_returns_at(t),
                                round.episode_lengths_at(t)};
    if (!observe_step(round.obs_at(t), round.actions_at(t), round.rewards_at(t), episodes, round.next_obs_at(t),
                      round.final_obs_at(t), monitor, callbacks))
      stop = true;
  }
  end_cycle(collected, stop, monitor);
  return !stop;
}

void DqnAgent::learn_parallel(TrainingRun& run) {
  const RuntimeConfig& rt = preset().runtime;
  ensure_buffer();
  const std::int64_t end = run.target();
  const Space& obs_space = spec_.observation_space;
  const std::size_t q_bytes = static_cast<std::size_t>(spec_.action_space.n()) * sizeof(float);

  // Declared before the fleet: the actors use them until the fleet has joined.
  ModuleParameterStore store;
  store.publish(snapshot_module(*q_net_));  // replicas start from the learner's weights
  auto make_replica = [&]() -> std::shared_ptr<BatchEvaluator> {
    QNetwork replica = keeping_torch_rng([&] { return QNetwork(obs_space, spec_.action_space, cfg_.policy); });
    return std::make_shared<ModuleEvaluator>(
        obs_space, q_bytes / sizeof(float), replica.ptr(),
        [replica](const std::vector<torch::Tensor>& obs) mutable { return replica->forward(obs); }, &store);
  };
  std::unique_ptr<BatchingServer> server = make_inference_server(rt, make_replica);

  DqnActingSchedule schedule;
  schedule.start_timesteps = num_timesteps_;
  schedule.total_timesteps = setup().preset.n_timesteps;
  schedule.total_envs = rt.total_envs();
  schedule.actors = rt.actors;
  schedule.seed = derive_seed(static_cast<std::uint64_t>(setup().preset.seed) + static_cast<std::uint64_t>(num_timesteps_),
                              kActorExplorationStream);
  ActorFleet fleet(preset_fleet_options(setup().preset, cfg_.train_freq, num_timesteps_),
                   preset_env_factory(setup().preset), [&](int actor) -> std::unique_ptr<ActorPolicy> {
                     DqnActingSchedule s = schedule;
                     s.actor = actor;
                     return std::make_unique<DqnActorPolicy>(
                         actor_evaluator(server.get(), obs_space.byte_size(), q_bytes, make_replica),
                         spec_.action_space, cfg_, s);
                   });
  fleet.on_stop([&] {
    if (server) server->stop();
    store.wake();
  });

  run_actor_training(*this, run, fleet, server.get(), [&](const Trajectory& round) {
    const bool go_on = learn_from_round(round, end, run.monitor(), run.callbacks());
    store.publish(snapshot_module(*q_net_));
    return go_on && num_timesteps_ < end;
  });
}

}  // namespace rlzoo
