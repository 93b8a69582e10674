#include "rl/callbacks.h"

#include <filesystem>
#include <fstream>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "rl/agent.h"
#include "core/checkpoint/manager.h"
#include "core/logging/logger.h"

namespace rlzoo {

CallbackList& CallbackList::add(std::unique_ptr<Callback> callback) {
  callbacks_.push_back(std::move(callback));
  return *this;
}

void CallbackList::on_training_start(Agent& agent) {
  for (auto& c : callbacks_) c->on_training_start(agent);
}

bool CallbackList::on_step(Agent& agent, std::int64_t num_timesteps) {
  bool go_on = true;
  for (auto& c : callbacks_) go_on = c->on_step(agent, num_timesteps) && go_on;
  return go_on;
}

void CallbackList::on_episode_end(Agent& agent, double episode_return, std::int64_t length,
                                  std::int64_t num_timesteps) {
  for (auto& c : callbacks_) c->on_episode_end(agent, episode_return, length, num_timesteps);
}

void CallbackList::on_rollout_end(Agent& agent, std::int64_t num_timesteps) {
  for (auto& c : callbacks_) c->on_rollout_end(agent, num_timesteps);
}

void CallbackList::on_training_end(Agent& agent) {
  for (auto& c : callbacks_) c->on_training_end(agent);
}

void EvalCallback::append_evaluation(const Agent& agent, std::int64_t num_timesteps, const EvalResult& r) const {
  const auto path = std::filesystem::path(agent.log_dir()) / "evaluations.csv";
  const auto extra = agent.eval_metrics();
  const bool fresh = !std::filesystem::exists(path);
  std::filesystem::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::app);
  if (fresh) {
    out << "timesteps,mean_return,std_return,episodes,mean_length";
    for (const auto& [name, value] : extra) out << ',' << name;
    out << '\n';
  }
  out << fmt::format("{},{},{},{},{}", num_timesteps, r.mean_return(), r.std_return(), r.returns.size(),
                     r.mean_length());
  for (const auto& [name, value] : extra) out << ',' << fmt::format("{}", value);
  out << '\n';
}

EvalCallback::EvalCallback(std::int64_t every, int episodes, std::string best_dir, double stop_at, bool stop)
    : every_(every), next_(every), episodes_(episodes), best_dir_(std::move(best_dir)), stop_at_(stop_at), stop_(stop) {}

bool EvalCallback::on_step(Agent& agent, std::int64_t num_timesteps) {
  if (every_ <= 0 || num_timesteps < next_) return true;
  while (next_ <= num_timesteps) next_ += every_;
  const EvalResult r = agent.evaluate(episodes_);
  const double mean = r.mean_return();
  history_.emplace_back(num_timesteps, mean);
  spdlog::info("eval at {} steps: mean return {:.2f} +/- {:.2f} over {} episodes", num_timesteps, mean, r.std_return(),
               episodes_);
  if (!agent.log_dir().empty()) append_evaluation(agent, num_timesteps, r);
  if (Logger* log = agent.training_logger()) {  // as SB3's EvalCallback: logged and dumped at this step
    log->record("eval/mean_reward", mean);
    log->record("eval/mean_ep_length", r.mean_length());
    log->record_excluded("time/total_timesteps", num_timesteps, {"tensorboard"});
    log->dump(num_timesteps);
  }
  if (mean > best_) {
    best_ = mean;
    if (!best_dir_.empty()) agent.save(best_dir_);
  }
  return !(stop_ && mean >= stop_at_);
}

CheckpointCallback::CheckpointCallback(std::string root, std::int64_t every, int keep)
    : root_(std::move(root)), every_(every), next_(every), keep_(keep) {}

void CheckpointCallback::save(Agent& agent, std::int64_t num_timesteps) {
  try {
    CheckpointManager(root_, keep_).save(num_timesteps, agent.checkpoint());
  } catch (const UserError& e) {
    throw UserError(fmt::format("checkpoint at step {} not saved: {}; the checkpoints saved before it in {} are intact",
                                num_timesteps, e.what(), root_));
  }
  last_saved_ = num_timesteps;
}

void CheckpointCallback::on_rollout_end(Agent& agent, std::int64_t num_timesteps) {
  if (every_ <= 0 || num_timesteps < next_) return;
  while (next_ <= num_timesteps) next_ += every_;
  save(agent, num_timesteps);
}

void CheckpointCallback::on_training_end(Agent& agent) {
  if (every_ > 0 && agent.num_timesteps() != last_saved_) save(agent, agent.num_timesteps());
}

}  // namespace rlzoo
