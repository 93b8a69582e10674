// What the training driver (Agent::learn) hands an algorithm's run_training(): where training
// stops, which backend feeds it, the monitor and the callbacks. The driver owns the lifecycle
// around it; an algorithm reports its env steps and cycle ends here and nothing else.
//
//   void MyAgent::run_training(TrainingRun& run) {
//     while (num_timesteps_ < run.target()) {
//       ... step the envs ...
//       if (!run.after_step(episodes, num_timesteps_)) break;   // a callback or a signal stopped it
//       ... update ...
//       run.end_cycle(num_timesteps_);                          // checkpoints are taken here
//     }
//   }
#pragma once

#include <cstdint>

#include "rl/algorithm_capabilities.h"
#include "rl/training_monitor.h"

namespace rlzoo {

class Agent;
class CallbackList;

class TrainingRun {
 public:
  TrainingRun(Agent& agent, std::int64_t target, Backend backend, CallbackList* callbacks);

  // num_timesteps() at which this learn() call ends.
  std::int64_t target() const { return target_; }
  bool reached(std::int64_t num_timesteps) const { return num_timesteps >= target_; }
  // Where experience comes from (checked against the algorithm's capabilities).
  Backend backend() const { return backend_; }

  TrainingMonitor& monitor() { return monitor_; }
  Logger& logger() { return monitor_.logger(); }
  // Null when learn() was given none.
  CallbackList* callbacks() const { return callbacks_; }

  // After one vector-env step (or a batch of finished episodes): episodes reported, progress
  // and log dumps, callbacks' on_episode_end and on_step. False: a callback or SIGINT/SIGTERM
  // asked to stop.
  bool after_step(const StepEpisodes& episodes, std::int64_t num_timesteps);
  // At the end of a collect-and-update cycle, where the learner's state is complete (a
  // checkpoint taken here resumes exactly): callbacks' on_rollout_end.
  void end_cycle(std::int64_t num_timesteps);
  // Counts a batch of experience an actor delivered (a round of trajectories, a finished game):
  // how check_algorithm tells that an actor backend really ran actors.
  void count_actor_batch() { ++actor_batches_; }
  std::int64_t actor_batches() const { return actor_batches_; }

 private:
  Agent& agent_;
  std::int64_t target_;
  Backend backend_;
  CallbackList* callbacks_;
  std::int64_t actor_batches_ = 0;
  TrainingMonitor monitor_;
};

}  // namespace rlzoo
