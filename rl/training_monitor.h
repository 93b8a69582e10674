// What every algorithm's learn() reports while it trains, in one place: finished episodes
// from the vector env (rollout/ep_rew_mean over the last 100, as SB3), time/fps, the
// algorithm's own train/* keys, a progress bar, and log dumps every `log_every` env steps to
// the console and, when the agent has a run directory, to CSV and TensorBoard files there.
// A continued run (start_step > 0: a second learn() or a resume) appends to the run's
// progress.csv, dropping rows logged after start_step (work the checkpoint did not keep), and
// its episode count goes on from the agent's.
#pragma once

#include <chrono>
#include <deque>
#include <memory>
#include <span>
#include <string>

#include "rl/callbacks.h"
#include "core/logging/logger.h"
#include "core/logging/progress.h"
#include "core/vector/vector_env.h"

namespace rlzoo {

// What one vector-env step reports about episodes: rows where terminated or truncated hold a
// finished episode's return and length (a VectorEnv's spans, or a runtime trajectory's step t).
struct StepEpisodes {
  std::span<const std::uint8_t> terminated, truncated;
  std::span<const double> returns;
  std::span<const std::int64_t> lengths;
};

struct MonitorOptions {
  std::int64_t start_step = 0;   // num_timesteps when learn() started
  std::int64_t start_episodes = 0;  // episodes finished before (time/episodes continues from it)
  std::int64_t total_steps = 0;  // num_timesteps learn() runs to
  std::int64_t log_every = 10'000;
  std::string log_dir;           // "" : console only
  bool progress = true;
  bool verbose = false;          // print SB3's key/value table at every dump
};

class TrainingMonitor {
 public:
  explicit TrainingMonitor(const MonitorOptions& options);
  // For agent.learn(): from its current num_timesteps() to `end`, logging to its log_dir()
  // every `log_every` steps, with its progress-bar setting.
  TrainingMonitor(const Agent& agent, std::int64_t end, std::int64_t log_every);
  ~TrainingMonitor();

  // After each vector-env step: collects the episodes that ended (telling the callbacks),
  // advances the progress bar, dumps the logs when log_every steps have passed, and calls
  // the callbacks' on_step. Returns false when a callback asks to stop.
  bool after_step(Agent& agent, const VectorEnv& venv, std::int64_t num_timesteps, CallbackList* callbacks);
  bool after_step(Agent& agent, const StepEpisodes& step, std::int64_t num_timesteps, CallbackList* callbacks);
  // The algorithm's keys for the next dump ("train/loss", ...).
  Logger& logger() { return logger_; }
  double mean_recent_return() const;   // NaN before the first episode ends
  std::int64_t episodes() const { return episodes_; }
  // Dumps whatever is recorded now and closes the progress bar.
  void finish(std::int64_t num_timesteps);

 private:
  void dump(std::int64_t num_timesteps);
  MonitorOptions options_;
  Logger logger_;
  Agent* agent_ = nullptr;  // whose training_logger() is logger_ (cleared when this ends)
  std::unique_ptr<ProgressBar> progress_;
  std::deque<double> returns_;
  std::deque<double> lengths_;
  std::int64_t episodes_ = 0;
  std::int64_t next_dump_;
  std::int64_t last_dump_ = -1;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace rlzoo
