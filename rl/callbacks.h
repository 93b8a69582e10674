// Training callbacks (Stable-Baselines3's hooks): called by every algorithm's learn().
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace rlzoo {

class Agent;
struct EvalResult;

class Callback {
 public:
  virtual ~Callback() = default;
  virtual void on_training_start(Agent& agent) {}
  // After every vector-env step (num_timesteps counts env steps over all envs). Returning
  // false stops training after this step.
  virtual bool on_step(Agent& agent, std::int64_t num_timesteps) { return true; }
  // When an episode of the training envs ends (its return and length are those of the
  // innermost env, unnormalised). Called before on_step of the same step.
  virtual void on_episode_end(Agent& agent, double episode_return, std::int64_t length, std::int64_t num_timesteps) {}
  // At the end of each collect-and-update cycle (on-policy: rollout + update; off-policy:
  // train_freq steps + gradient steps), when the learner's state is complete.
  virtual void on_rollout_end(Agent& agent, std::int64_t num_timesteps) {}
  virtual void on_training_end(Agent& agent) {}
};

class CallbackList {
 public:
  CallbackList() = default;
  CallbackList& add(std::unique_ptr<Callback> callback);
  void on_training_start(Agent& agent);
  bool on_step(Agent& agent, std::int64_t num_timesteps);
  void on_episode_end(Agent& agent, double episode_return, std::int64_t length, std::int64_t num_timesteps);
  void on_rollout_end(Agent& agent, std::int64_t num_timesteps);
  void on_training_end(Agent& agent);
  bool empty() const { return callbacks_.empty(); }

 private:
  std::vector<std::unique_ptr<Callback>> callbacks_;
};

// Every `every` env steps: evaluate for `episodes` deterministic episodes; keep the best agent
// in `best_dir` (when not empty); stop when the mean reaches `stop_at` (when set). With a log
// directory, each evaluation is a row of <log_dir>/evaluations.csv.
class EvalCallback : public Callback {
 public:
  EvalCallback(std::int64_t every, int episodes, std::string best_dir = "", double stop_at = 0, bool stop = false);
  bool on_step(Agent& agent, std::int64_t num_timesteps) override;
  double best_mean() const { return best_; }
  const std::vector<std::pair<std::int64_t, double>>& history() const { return history_; }

 private:
  std::int64_t every_, next_;
  int episodes_;
  std::string best_dir_;
  double stop_at_;
  bool stop_;
  double best_ = -1e300;
  std::vector<std::pair<std::int64_t, double>> history_;
  // One row of <log_dir>/evaluations.csv: steps, mean/std return, episodes, mean length and the
  // agent's eval_metrics() (a resumed run appends; a reader keeps the last row per step).
  void append_evaluation(const Agent& agent, std::int64_t num_timesteps, const EvalResult& r) const;
};

// Every `every` env steps: save a checkpoint `<root>/ckpt_<steps>` keeping the last `keep`,
// with a `latest` pointer (core/checkpoint/manager.h). Saved at the end of the update cycle
// that crosses the mark (on_rollout_end), where the learner's state is complete, so that a
// resumed run continues exactly as the uninterrupted one would have.
class CheckpointCallback : public Callback {
 public:
  CheckpointCallback(std::string root, std::int64_t every, int keep);
  void on_rollout_end(Agent& agent, std::int64_t num_timesteps) override;
  void on_training_end(Agent& agent) override;

 private:
  void save(Agent& agent, std::int64_t num_timesteps);
  std::string root_;
  std::int64_t every_, next_;
  int keep_;
  std::int64_t last_saved_ = -1;
};

}  // namespace rlzoo
