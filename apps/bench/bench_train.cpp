// `rlzoo bench train`: wall-clock and env steps until the mean return of the last 10
// training episodes first reaches a target, plus training throughput (medians over seeds):
// 475 on CartPole-v1 for PPO and DQN (CleanRL's figures printed as references), -200 on
// Pendulum-v1 for SAC and TD3 (RLtools' sizes; its figure is measured beside, not printed).
#include <algorithm>
#include <chrono>
#include <deque>
#include <filesystem>
#include <fmt/format.h>
#include <numeric>
#include <optional>

#include "rl/agent.h"
#include "apps/cli_checks.h"
#include "apps/bench/bench_util.h"
#include "apps/commands.h"

namespace rlzoo::cli {

namespace {

// Stops training when the mean of the last `window` episode returns first reaches `target`.
class TimeToThreshold : public Callback {
 public:
  TimeToThreshold(double target, std::size_t window) : target_(target), window_(window) {}
  void on_training_start(Agent&) override { start_ = std::chrono::steady_clock::now(); }
  void on_episode_end(Agent&, double r, std::int64_t, std::int64_t steps) override {
    recent_.push_back(r);
    if (recent_.size() > window_) recent_.pop_front();
    if (!reached_at_ && recent_.size() == window_ &&
        std::accumulate(recent_.begin(), recent_.end(), 0.0) / static_cast<double>(window_) >= target_) {
      reached_at_ = steps;
      seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    }
  }
  bool on_step(Agent&, std::int64_t) override { return !reached_at_; }
  std::optional<std::int64_t> steps() const { return reached_at_; }
  double seconds() const { return seconds_; }

 private:
  double target_;
  std::size_t window_;
  std::deque<double> recent_;
  std::optional<std::int64_t> reached_at_;
  double seconds_ = 0;
  std::chrono::steady_clock::time_point start_;
};

struct TrainBenchOptions {
  std::string configs = "configs";
  int seeds = 3;
  std::int64_t max_steps = 500'000;
};

// What one algorithm's lines measure.
struct TrainTask {
  std::string env;
  double target;
  std::optional<std::string> reference;  // a published figure printed beside ours
  double reference_seconds = 0, reference_steps = 0, reference_rate = 0;
};

std::optional<TrainTask> train_task(const std::string& algo) {
  if (algo == "ppo") return TrainTask{"CartPole-v1", 475.0, "cleanrl_ppo", 21.0, 154e3, 8100};
  if (algo == "dqn") return TrainTask{"CartPole-v1", 475.0, "cleanrl_dqn", 35.0, 242e3, 6900};
  if (algo == "sac" || algo == "td3") return TrainTask{"Pendulum-v1", -200.0, std::nullopt};
  return std::nullopt;
}

void bench_algorithm(const std::string& algo, const TrainTask& task, const TrainBenchOptions& o) {
  // A preset tuned for this benchmark (configs/bench/) when there is one, else the algorithm's.
  std::string preset = fmt::format("{}/bench/{}/{}.yaml", o.configs, algo, task.env);
  if (!std::filesystem::exists(preset)) preset = fmt::format("{}/{}/{}.yaml", o.configs, algo, task.env);
  std::vector<double> seconds, steps, rates;
  int reached = 0;
  for (int seed = 0; seed < o.seeds; ++seed) {
    // The preset's n_timesteps stays as it is: its schedules (exploration, learning rate)
    // are defined over it; learn() may run past it until max_steps.
    auto agent = Agent::from_preset(preset, {fmt::format("seed={}", seed)});
    agent->set_progress_bar(false);
    CallbackList callbacks;
    auto timer = std::make_unique<TimeToThreshold>(task.target, 10);
    auto* t = timer.get();
    callbacks.add(std::move(timer));
    const auto start = std::chrono::steady_clock::now();
    agent->learn(o.max_steps, &callbacks);
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    rates.push_back(static_cast<double>(agent->num_timesteps()) / elapsed);
    if (t->steps()) {
      ++reached;
      seconds.push_back(t->seconds());
      steps.push_back(static_cast<double>(*t->steps()));
    } else {
      seconds.push_back(std::numeric_limits<double>::infinity());
      steps.push_back(std::numeric_limits<double>::infinity());
    }
  }
  const std::string to = fmt::format("{:g}", task.target);
  const nlohmann::json extra{{"preset", preset}, {"seeds", o.seeds}, {"reached", reached}, {"per_seed", seconds}};
  const double med_s = median(seconds), med_steps = median(steps);
  print_bench_line(fmt::format("train/{}/{}/seconds_to_{}", algo, task.env, to), std::isfinite(med_s) ? med_s : -1.0,
                   "s", nullptr, extra);
  print_bench_line(fmt::format("train/{}/{}/steps_to_{}", algo, task.env, to),
                   std::isfinite(med_steps) ? med_steps : -1.0, "env-steps", nullptr,
                   {{"preset", preset}, {"per_seed", steps}});
  print_bench_line(fmt::format("train/{}/{}/train_steps_per_s", algo, task.env), median(rates), "env-steps/s", nullptr,
                   {{"preset", preset}, {"per_seed", rates}});
  if (!task.reference) return;
  const std::string& name = *task.reference;
  const nlohmann::json ref{{"reference", true}, {"source", "issue #3: " + name + " on this kind of machine, 1 thread"}};
  print_bench_line(fmt::format("reference/{}/seconds_to_{}", name, to), task.reference_seconds, "s", nullptr, ref);
  print_bench_line(fmt::format("reference/{}/steps_to_{}", name, to), task.reference_steps, "env-steps", nullptr, ref);
  print_bench_line(fmt::format("reference/{}/steps_per_s", name), task.reference_rate, "env-steps/s", nullptr, ref);
}

}  // namespace

void add_train_bench_command(CLI::App& bench) {
  auto* cmd = bench.add_subcommand(
      "train", "Time and env steps to a target mean return: 475 on CartPole-v1 (ppo, dqn), -200 on Pendulum-v1 (sac, td3)");
  auto o = std::make_shared<TrainBenchOptions>();
  auto algos = std::make_shared<std::vector<std::string>>(std::vector<std::string>{"ppo", "dqn"});
  cmd->add_option("--algos", *algos, "Algorithms to measure (ppo, dqn, sac, td3)")->delimiter(',');
  cmd->add_option("--configs", o->configs,
                  "Preset folder (uses <folder>/bench/<algo>/<env>.yaml, else <folder>/<algo>/<env>.yaml)");
  cmd->add_option("--seeds", o->seeds, "Seeds (the median is printed)")->check(positive());
  cmd->add_option("--max-steps", o->max_steps, "Give up after this many env steps per seed")->check(positive());
  cmd->callback([o, algos] {
    for (const auto& a : *algos)
      if (!train_task(a)) throw UserError(fmt::format("bench train: no task for algorithm '{}' (ppo, dqn, sac, td3)", a));
    for (const auto& a : *algos) bench_algorithm(a, *train_task(a), *o);
  });
}

}  // namespace rlzoo::cli
