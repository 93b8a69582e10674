// `rlzoo bench distributed`: a loopback fleet (this process as the learner, 2 `rlzoo actor`
// processes) against the in-process runtime with the same 2 actors (threads), training PPO on
// CartPole-v1 (configs/ppo/CartPole-v1-fleet.yaml). Throughput is env steps per second of
// training between the first and the last round (process start-up excluded: the fleet's figure
// starts once both actor processes have registered), median of --repeats; the in-process
// figure is the baseline. Two variants: the tuned preset (20 epochs per round: the update
// dominates) and 1 epoch per round (transport and acting dominate). Also the trajectory bytes
// per second the learner received.
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>

#include "rl/agent.h"
#include "apps/cli_checks.h"
#include "apps/app_paths.h"
#include "apps/bench/bench_util.h"
#include "apps/commands.h"
#include "core/config/yaml_io.h"
#include "distributed/fleet_server.h"
#include "distributed/launcher.h"

namespace rlzoo::cli {

namespace {

using Clock = std::chrono::steady_clock;

// Steps per second between the first and the last round. With `fleet`, the first round
// counted is the first one that ends after both actor processes have registered: until then the
// round is made by the actor that started first alone (an actor process's start-up takes
// 0.2-0.5 s on two busy cores, a quarter of a short run), where the threads start together.
class RoundClock : public Callback {
 public:
  explicit RoundClock(const GrpcFleet* fleet = nullptr) : fleet_(fleet) {}
  void on_rollout_end(Agent&, std::int64_t steps) override {
    if (first_steps_ < 0 && fleet_ && fleet_->stats().registrations < 2) return;
    if (first_steps_ < 0) {
      first_steps_ = steps;
      first_ = Clock::now();
    }
    last_steps_ = steps;
    last_ = Clock::now();
  }
  double rate() const {
    return static_cast<double>(last_steps_ - first_steps_) / std::chrono::duration<double>(last_ - first_).count();
  }
  double seconds() const { return std::chrono::duration<double>(last_ - first_).count(); }

 private:
  const GrpcFleet* fleet_;
  std::int64_t first_steps_ = -1, last_steps_ = 0;
  Clock::time_point first_, last_;
};

std::unique_ptr<Agent> fleet_agent(const std::vector<std::string>& sets, std::int64_t steps) {
  const std::string path = (presets_dir() / "ppo" / "CartPole-v1-fleet.yaml").string();
  YAML::Node root = load_yaml_file(path);
  ConfigContext ctx(path);
  for (const auto& s : sets) apply_override(root, s, ctx);
  apply_override(root, fmt::format("n_timesteps={}", steps), ctx);
  auto agent = make_agent_from_yaml(root, ctx);
  agent->set_progress_bar(false);
  return agent;
}

double in_process(const std::vector<std::string>& sets, std::int64_t steps) {
  auto agent = fleet_agent(sets, steps);
  auto clock = std::make_unique<RoundClock>();
  const RoundClock* c = clock.get();
  CallbackList callbacks;
  callbacks.add(std::move(clock));
  agent->learn(steps, &callbacks);
  return c->rate();
}

struct FleetRun {
  double rate = 0, bytes_per_s = 0;
};

FleetRun over_fleet(const std::vector<std::string>& sets, std::int64_t steps) {
  auto agent = fleet_agent(sets, steps);
  FleetServerOptions o;
  const int port = free_loopback_port();
  o.listen = fmt::format("127.0.0.1:{}", port);
  auto fleet = std::make_shared<GrpcFleet>(o);
  agent->set_remote_fleet(fleet);
  const std::string self = executable_path().string();
  std::vector<pid_t> actors;
  for (int i = 0; i < 2; ++i) {
    const pid_t pid = fork();
    if (pid == 0) {
      const std::string addr = o.listen, id = std::to_string(i);
      execl(self.c_str(), self.c_str(), "actor", "--connect", addr.c_str(), "--actor-id", id.c_str(),
            static_cast<char*>(nullptr));
      _exit(127);
    }
    actors.push_back(pid);
  }
  auto clock = std::make_unique<RoundClock>(fleet.get());
  const RoundClock* c = clock.get();
  CallbackList callbacks;
  callbacks.add(std::move(clock));
  agent->learn(steps, &callbacks);
  for (pid_t pid : actors) waitpid(pid, nullptr, 0);
  return {c->rate(), static_cast<double>(fleet->stats().bytes_accepted) / c->seconds()};
}

}  // namespace

void add_distributed_bench_command(CLI::App& bench) {
  auto steps = std::make_shared<std::int64_t>(30'000);
  auto repeats = std::make_shared<int>(3);
  auto* cmd = bench.add_subcommand("distributed", "PPO CartPole: a loopback fleet of 2 actor processes vs 2 actor threads");
  cmd->add_option("--steps", *steps, "Env steps per run")->check(positive());
  cmd->add_option("--repeats", *repeats, "Runs per figure (median)")->check(positive());
  cmd->callback([=] {
    // Goals: 0.8 with the tuned preset, 0.9 with 1 epoch per round (issue #30).
    struct Variant {
      std::string name;
      std::vector<std::string> sets;
      double goal;
    };
    const std::vector<Variant> variants{{"ppo_cartpole", {}, 0.8},
                                        {"ppo_cartpole_1epoch", {"hyperparams.n_epochs=1"}, 0.9}};
    for (const auto& [name, sets, goal] : variants) {
      std::vector<double> local, remote, bytes;
      for (int r = 0; r < *repeats; ++r) {
        local.push_back(in_process(sets, *steps));
        const FleetRun f = over_fleet(sets, *steps);
        remote.push_back(f.rate);
        bytes.push_back(f.bytes_per_s);
      }
      const double l = median(local), m = median(remote);
      print_bench_line(fmt::format("distributed/{}/env_steps_per_s", name), m, "env-steps/s",
                       {{"in_process_2_actor_threads", l}},
                       {{"ratio", m / l}, {"goal_ratio", goal}, {"repeats", *repeats}, {"steps", *steps}});
      print_bench_line(fmt::format("distributed/{}/trajectory_bytes_per_s", name), median(bytes), "B/s", nullptr,
                       {{"repeats", *repeats}});
    }
  });
}

}  // namespace rlzoo::cli
