// The training driver: Agent::learn(), the one lifecycle around every algorithm's
// run_training(), and the TrainingRun it hands over.
#include <fmt/format.h>

#include "rl/agent.h"
#include "rl/algorithm_registry.h"
#include "rl/timestep_cap.h"
#include "rl/training_run.h"

namespace rlzoo {

TrainingRun::TrainingRun(Agent& agent, std::int64_t target, Backend backend, CallbackList* callbacks)
    : agent_(agent),
      target_(target),
      backend_(backend),
      callbacks_(callbacks),
      monitor_(agent, target, agent.preset().log_every) {}

bool TrainingRun::after_step(const StepEpisodes& episodes, std::int64_t num_timesteps) {
  return monitor_.after_step(agent_, episodes, num_timesteps, callbacks_);
}

void TrainingRun::end_cycle(std::int64_t num_timesteps) {
  if (callbacks_) callbacks_->on_rollout_end(agent_, num_timesteps);
}

const AlgorithmCapabilities& Agent::capabilities() const { return algorithm_registry().get(algorithm()).capabilities; }

YAML::Node Agent::config() const {
  YAML::Node n = to_yaml(preset());
  n["hyperparams"] = resolved_hyperparams();
  return n;
}

void Agent::use_learner_threads() const { use_agent_threads(preset(), capabilities(), /*announce=*/true); }

void Agent::learn(std::int64_t timesteps, CallbackList* callbacks) {
  const AlgorithmCapabilities& caps = capabilities();
  if (timesteps < 1) throw UserError(fmt::format("learn: {} must be >= 1, got {}", caps.progress_unit, timesteps));
  timesteps = capped_timesteps(timesteps, "learn()");
  // The preset was checked when the agent was made; what is set on the agent since is checked here.
  const Backend backend = remote_fleet() ? Backend::processes : requested_backend(preset().runtime, caps);
  if (!caps.supports(backend))
    throw UserError(fmt::format("{} does not run on the {} backend; it supports: {}", algorithm(),
                                backend_name(backend), caps.backend_list()));
  if (backend == Backend::processes && !remote_fleet())
    throw UserError(fmt::format("runtime.backend processes: actor processes serve `rlzoo learner` (actors join with "
                                "`rlzoo actor`) and `rlzoo launch`; train with those, or with backend threads here"));
  if (gradient_reducer().world_size() > 1 && !caps.several_learners)
    throw UserError(fmt::format("{} trains as one learner only (several learners: {})", algorithm(),
                                algorithms_that([](const AlgorithmCapabilities& c) { return c.several_learners; })));
  use_learner_threads();
  gradient_reducer().synchronize(learner_parameters());  // several learners start alike
  prepare_training();
  TrainingRun run(*this, num_timesteps() + timesteps, backend, callbacks);
  if (callbacks) callbacks->on_training_start(*this);
  last_training_ = {backend, 0};
  run_training(run);
  last_training_.actor_batches = run.actor_batches();
  run.monitor().finish(num_timesteps());
  if (callbacks) callbacks->on_training_end(*this);
}

}  // namespace rlzoo
