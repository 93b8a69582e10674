#include "rl/training_monitor.h"

#include <cmath>
#include <iostream>
#include <numeric>
#include <spdlog/spdlog.h>

#include "rl/agent.h"
#include "core/logging/console_sink.h"
#include "core/logging/csv_sink.h"
#include "core/runtime/stop.h"

namespace rlzoo {

namespace {
constexpr std::size_t kWindow = 100;
double mean_of(const std::deque<double>& d) {
  return d.empty() ? std::nan("") : std::accumulate(d.begin(), d.end(), 0.0) / static_cast<double>(d.size());
}
}  // namespace

TrainingMonitor::TrainingMonitor(const MonitorOptions& options)
    : options_(options),
      episodes_(options.start_episodes),
      next_dump_(options.start_step + options.log_every),
      last_dump_(options.start_step),  // a continued run logged start_step already
      start_(std::chrono::steady_clock::now()) {
  if (!options_.log_dir.empty()) {
    const std::filesystem::path csv = std::filesystem::path(options_.log_dir) / "progress.csv";
    logger_.add_sink(options_.start_step > 0 ? std::make_unique<CsvSink>(CsvSink::continued(csv, options_.start_step))
                                             : std::make_unique<CsvSink>(csv));
    logger_.add_sink(make_log_sink("tensorboard", options_.log_dir));
  }
  if (options_.verbose) logger_.add_sink(std::make_unique<ConsoleSink>(std::cout, true));
  if (options_.progress) {
    ProgressBarOptions p;
    p.total_steps = options_.total_steps;
    p.start_step = options_.start_step;
    progress_ = std::make_unique<ProgressBar>(p);
  }
}

namespace {
MonitorOptions options_for(const Agent& agent, std::int64_t end, std::int64_t log_every) {
  MonitorOptions o;
  o.start_step = agent.num_timesteps();
  o.start_episodes = agent.num_episodes();
  o.total_steps = end;
  o.log_every = log_every;
  o.log_dir = agent.log_dir();
  o.progress = agent.progress_bar();
  return o;
}
}  // namespace

TrainingMonitor::TrainingMonitor(const Agent& agent, std::int64_t end, std::int64_t log_every)
    : TrainingMonitor(options_for(agent, end, log_every)) {}

TrainingMonitor::~TrainingMonitor() {
  if (agent_ != nullptr && agent_->training_logger() == &logger_) agent_->set_training_logger(nullptr);
}

double TrainingMonitor::mean_recent_return() const { return mean_of(returns_); }

bool TrainingMonitor::after_step(Agent& agent, const VectorEnv& venv, std::int64_t num_timesteps,
                                 CallbackList* callbacks) {
  return after_step(agent, StepEpisodes{venv.terminated(), venv.truncated(), venv.episode_returns(), venv.episode_lengths()},
                    num_timesteps, callbacks);
}

bool TrainingMonitor::after_step(Agent& agent, const StepEpisodes& step, std::int64_t num_timesteps,
                                 CallbackList* callbacks) {
  if (agent_ != &agent) {  // callbacks report through agent.training_logger()
    agent_ = &agent;
    agent.set_training_logger(&logger_);
  }
  for (std::size_t i = 0; i < step.terminated.size(); ++i) {
    if (!step.terminated[i] && !step.truncated[i]) continue;
    returns_.push_back(step.returns[i]);
    lengths_.push_back(static_cast<double>(step.lengths[i]));
    if (returns_.size() > kWindow) {
      returns_.pop_front();
      lengths_.pop_front();
    }
    agent.set_num_episodes(++episodes_);
    if (progress_) progress_->add_episode_return(step.returns[i]);
    if (callbacks) callbacks->on_episode_end(agent, step.returns[i], step.lengths[i], num_timesteps);
  }
  if (progress_) progress_->update(num_timesteps);
  if (num_timesteps >= next_dump_) {
    while (next_dump_ <= num_timesteps) next_dump_ += options_.log_every;
    dump(num_timesteps);
  }
  // SIGINT/SIGTERM (while a SignalStop is alive, core/runtime/stop.h) end training like a
  // callback asking to stop: the learner finishes its cycle and callbacks see on_training_end.
  if (signal_stop_requested()) return false;
  return callbacks ? callbacks->on_step(agent, num_timesteps) : true;
}

void TrainingMonitor::dump(std::int64_t num_timesteps) {
  last_dump_ = num_timesteps;
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  if (!returns_.empty()) {
    logger_.record("rollout/ep_rew_mean", mean_of(returns_));
    logger_.record("rollout/ep_len_mean", mean_of(lengths_));
  }
  logger_.record("time/fps", static_cast<double>(num_timesteps - options_.start_step) / std::max(elapsed, 1e-9));
  logger_.record_excluded("time/total_timesteps", num_timesteps, {"tensorboard"});
  logger_.record_excluded("time/time_elapsed", elapsed, {"tensorboard"});
  logger_.record_excluded("time/episodes", episodes_, {"tensorboard"});
  if (options_.progress)
    spdlog::info("{:>9} steps | ep_rew_mean {:>8.2f} | episodes {:>6} | {:>7.0f} steps/s", num_timesteps,
                 mean_of(returns_), episodes_,
                 static_cast<double>(num_timesteps - options_.start_step) / std::max(elapsed, 1e-9));
  logger_.dump(num_timesteps);
}

void TrainingMonitor::finish(std::int64_t num_timesteps) {
  if (num_timesteps != last_dump_) dump(num_timesteps);
  if (progress_) progress_->finish();
}

}  // namespace rlzoo
