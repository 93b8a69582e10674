// DQN with runtime actor threads (preset `runtime.actors > 0`): Ape-X style acting, one
// replay buffer, the learner on the calling thread.
#include <fmt/format.h>

#include "agents/runtime/module_evaluator.h"
#include "agents/training_monitor.h"
#include "algorithms/dqn/dqn.h"
#include "algorithms/dqn/dqn_actor.h"
#include "core/runtime/actor_fleet.h"
#include "core/runtime/batching_server.h"
#include "core/runtime/learner.h"
#include "core/torch/module_parameters.h"
#include "core/torch/tensor_io.h"

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

void DqnAgent::learn_parallel(std::int64_t timesteps, CallbackList* callbacks) {
  const RuntimeConfig& rt = setup_.preset.runtime;
  ensure_buffer();
  const std::int64_t end = num_timesteps_ + timesteps;
  const Space& obs_space = spec_.observation_space;
  const std::int64_t n_actions = spec_.action_space.n();
  const auto q_floats = static_cast<std::size_t>(n_actions);

  // Declared before the fleet: the actors use them until the fleet has joined.
  ModuleParameterStore store;
  store.publish(snapshot_module(*q_net_));
  // Replicas start from the learner's weights (the store); building one draws from torch's
  // default generator, which the learner's replay sampling uses, so its state is kept.
  auto make_evaluator = [&] {
    const std::string rng_state = save_generator_state();
    QNetwork replica(obs_space, spec_.action_space, cfg_.policy);
    load_generator_state(rng_state, "torch_rng");
    return std::make_shared<ModuleEvaluator>(
        obs_space, q_floats, replica.ptr(),
        [replica](const std::vector<torch::Tensor>& obs) mutable { return replica->forward(obs); }, &store);
  };
  std::unique_ptr<BatchingServer> server;
  if (rt.inference.max_batch > 0) {
    auto shared = make_evaluator();
    server = std::make_unique<BatchingServer>(
        obs_space.byte_size(), q_floats * sizeof(float),
        [shared](ConstBytes in, std::int64_t rows, Bytes out) { shared->evaluate(in, rows, out); },
        BatchingOptions{rt.inference.max_batch, rt.inference.max_wait_us, rt.actors});
  }

  ActorFleetOptions fo;
  fo.actors = rt.actors;
  fo.envs_per_actor = rt.envs_per_actor;
  fo.steps_per_trajectory = cfg_.train_freq;
  fo.queue_capacity = static_cast<std::size_t>(rt.queue_capacity);
  // A later learn() call (or a resumed run) starts new episodes from a seed that depends on
  // the progress, as the synchronous loop does after restore().
  fo.reset_seed = static_cast<std::uint64_t>(setup_.preset.seed) + static_cast<std::uint64_t>(num_timesteps_);
  DqnActingSchedule schedule;
  schedule.start_timesteps = num_timesteps_;
  schedule.total_timesteps = setup_.preset.n_timesteps;
  schedule.total_envs = rt.total_envs();
  schedule.actors = rt.actors;
  schedule.seed = derive_seed(static_cast<std::uint64_t>(setup_.preset.seed) + static_cast<std::uint64_t>(num_timesteps_),
                              kActorExplorationStream);
  ActorFleet fleet(
      fo,
      [&](int) { return make_vector_env(setup_.preset.env, rt.envs_per_actor, 1, setup_.preset.env_kwargs); },
      [&](int actor) -> std::unique_ptr<ActorPolicy> {
        std::shared_ptr<BatchEvaluator> q;
        if (server)
          q = std::make_shared<ServedEvaluator>(*server, obs_space.byte_size(), q_floats * sizeof(float));
        else
          q = make_evaluator();
        DqnActingSchedule s = schedule;
        s.actor = actor;
        return std::make_unique<DqnActorPolicy>(std::move(q), spec_.action_space, cfg_, s);
      });
  fleet.on_stop([&] {
    if (server) server->stop();
    store.wake();
  });

  TrainingMonitor monitor(*this, end, setup_.preset.log_every);
  if (callbacks) callbacks->on_training_start(*this);
  fleet.start();
  FunctionLearner learner([&](const Trajectory& round) {
    const bool go_on = learn_from_round(round, end, monitor, callbacks);
    store.publish(snapshot_module(*q_net_));
    if (callbacks) callbacks->on_rollout_end(*this, num_timesteps_);
    return go_on && num_timesteps_ < end;
  });
  run_learner(fleet, learner);  // ends early when interrupted (SIGINT/SIGTERM)
  fleet.stop();
  monitor.logger().record("runtime/trajectories", static_cast<double>(fleet.trajectories_taken()));
  if (server && server->batches() > 0)
    monitor.logger().record("runtime/mean_inference_batch",
                            static_cast<double>(server->rows_served()) / static_cast<double>(server->batches()));
  monitor.finish(num_timesteps_);
  if (callbacks) callbacks->on_training_end(*this);
}

}  // namespace rlzoo
