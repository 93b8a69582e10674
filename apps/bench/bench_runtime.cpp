// `rlzoo bench runtime`: env-steps/s with policy inference on the actor/learner runtime.
//
// Two workloads: CartPole-v1 with a 4->64->64->2 MLP (argmax actions), and a synthetic env
// (17 float observations, 6 float actions, trivial dynamics) with a 17->256->256->6 MLP, where
// the network dominates. For each: the single-threaded loop (one vector env, one forward per
// step over all its envs) and the runtime with 1 and 2 actor threads, each with
//  * batched inference: one forward per step over the actor's envs (its own network replica),
//  * the shared inference server: actors' requests gathered into one forward,
//  * per-env inference: one forward per env and step (the baseline batching is measured against).
// Every actor steps --envs envs (so 2 actors step twice as many envs as 1, on 2 threads). The
// learner side only takes the trajectories. DQN's training throughput, single loop against 2
// actors at the same replay ratio, closes the run (--dqn-steps 0 skips it).
#include <chrono>
#include <fmt/format.h>

#include "rl/agent.h"
#include "rl/runtime/module_evaluator.h"
#include "apps/cli_checks.h"
#include "apps/bench/bench_util.h"
#include "apps/commands.h"
#include "core/registry/env_registry.h"
#include "core/runtime/actor_fleet.h"
#include "core/runtime/batching_server.h"
#include "core/torch/threads.h"

namespace rlzoo::cli {

namespace {

// 17 observations, 6 actions in [-1, 1]: a few arithmetic operations per step, so the
// network's cost is what the runtime figures show.
class SyntheticEnv : public Env {
 public:
  SyntheticEnv() : Env(EnvSpec{"Synthetic17x6-v0", Space::box(-10, 10, {17}), Space::box(-1, 1, {6}), 200}) {}

 protected:
  void do_reset(std::optional<std::uint64_t>, Bytes obs) override {
    auto o = as_span<float>(obs);
    for (auto& v : o) v = static_cast<float>(rng().uniform(-0.1, 0.1));
  }
  StepResult do_step(ConstBytes action, Bytes obs) override {
    auto a = as_span<const float>(action);
    auto o = as_span<float>(obs);
    double reward = 0;
    for (std::size_t i = 0; i < o.size(); ++i) {
      o[i] = 0.9f * o[i] + 0.1f * a[i % a.size()];
      reward -= static_cast<double>(o[i]) * o[i];
    }
    return {reward, false, false};
  }
};

struct Workload {
  std::string name;
  std::function<std::unique_ptr<Env>()> make_env;
  std::int64_t hidden;
};

std::unique_ptr<VectorEnv> vector_of(const Workload& w, std::int64_t n) {
  std::vector<std::unique_ptr<Env>> envs;
  for (std::int64_t i = 0; i < n; ++i) envs.push_back(w.make_env());
  return std::make_unique<SyncVectorEnv>(std::move(envs));
}

// The MLP and the action rule: argmax for Discrete, the outputs clipped for Box.
struct PolicyNet {
  torch::nn::Sequential net;
  std::size_t out_floats;
  PolicyNet(const Space& obs, const Space& act, std::int64_t hidden) {
    out_floats = static_cast<std::size_t>(act.is_discrete() ? act.n() : act.numel());
    torch::manual_seed(0);
    net = torch::nn::Sequential(torch::nn::Linear(obs.numel(), hidden), torch::nn::Tanh(),
                                torch::nn::Linear(hidden, hidden), torch::nn::Tanh(),
                                torch::nn::Linear(hidden, static_cast<std::int64_t>(out_floats)));
  }
  std::shared_ptr<ModuleEvaluator> evaluator(const Space& obs) const {
    auto n = net;
    return std::make_shared<ModuleEvaluator>(
        obs, out_floats, n.ptr(), [n](const std::vector<torch::Tensor>& x) mutable { return n->forward(x[0]); },
        nullptr);
  }
};

class GreedyPolicy : public ActorPolicy {
 public:
  GreedyPolicy(std::shared_ptr<BatchEvaluator> eval, const Space& act) : eval_(std::move(eval)), act_(act) {}
  bool act(const ActBatch& b) override {
    const std::size_t k = eval_->out_row_bytes() / sizeof(float);
    out_.resize(static_cast<std::size_t>(b.rows) * k);
    if (!eval_->evaluate(b.obs, b.rows, std::as_writable_bytes(std::span(out_)))) return false;
    for (std::int64_t r = 0; r < b.rows; ++r) {
      const float* y = out_.data() + static_cast<std::size_t>(r) * k;
      if (act_.is_discrete()) {
        as_span<std::int64_t>(b.actions)[static_cast<std::size_t>(r)] =
            static_cast<std::int64_t>(std::max_element(y, y + k) - y);
      } else {
        auto a = as_span<float>(b.actions);
        for (std::size_t j = 0; j < k; ++j) a[static_cast<std::size_t>(r) * k + j] = std::clamp(y[j], -1.0f, 1.0f);
      }
    }
    return true;
  }

 private:
  std::shared_ptr<BatchEvaluator> eval_;
  Space act_;
  std::vector<float> out_;
};

struct RuntimeBenchOptions {
  double seconds = 1.0;
  int repeats = 3;
  std::int64_t envs = 64;
  std::int64_t steps_per_trajectory = 32;
  std::int64_t dqn_steps = 20'000;
  std::string configs = "configs";
};

enum class Inference { batched, server, per_env };
const char* name_of(Inference i) {
  return i == Inference::batched ? "batched" : i == Inference::server ? "server" : "per_env";
}

double single_loop_rate(const Workload& w, const PolicyNet& net, bool per_env, const RuntimeBenchOptions& o) {
  auto venv = vector_of(w, o.envs);
  venv->reset(0);
  std::shared_ptr<BatchEvaluator> eval = net.evaluator(venv->single_observation_space());
  if (per_env) eval = std::make_shared<RowByRowEvaluator>(eval);
  GreedyPolicy policy(eval, venv->single_action_space());
  std::vector<std::byte> actions(static_cast<std::size_t>(o.envs) * venv->single_action_space().byte_size());
  const std::int64_t steps = per_env ? 4 : 32;
  return median_rate(
      [&] {
        for (std::int64_t s = 0; s < steps; ++s) {
          ActBatch b;
          b.obs = venv->observation_bytes();
          b.rows = o.envs;
          b.actions = Bytes(actions);
          policy.act(b);
          venv->step(ConstBytes(actions));
        }
      },
      static_cast<double>(steps * o.envs), o.seconds, o.repeats);
}

double runtime_rate(const Workload& w, const PolicyNet& net, int actors, Inference inference,
                    const RuntimeBenchOptions& o, double* mean_batch) {
  const auto probe = w.make_env();
  const Space obs = probe->observation_space(), act = probe->action_space();
  std::unique_ptr<BatchingServer> server;
  if (inference == Inference::server) {
    auto shared = net.evaluator(obs);
    server = std::make_unique<BatchingServer>(
        obs.byte_size(), shared->out_row_bytes(),
        [shared](ConstBytes in, std::int64_t rows, Bytes out) { shared->evaluate(in, rows, out); },
        BatchingOptions{o.envs * actors, 200, actors});
  }
  ActorFleetOptions fo;
  fo.actors = actors;
  fo.envs_per_actor = o.envs;
  fo.steps_per_trajectory = o.steps_per_trajectory;
  fo.queue_capacity = 4;
  fo.reset_seed = 0;
  ActorFleet fleet(fo, [&](int) { return vector_of(w, o.envs); },
                   [&](int) -> std::unique_ptr<ActorPolicy> {
                     std::shared_ptr<BatchEvaluator> eval;
                     if (server)
                       eval = std::make_shared<ServedEvaluator>(*server, obs.byte_size(), net.out_floats * sizeof(float));
                     else
                       eval = net.evaluator(obs);  // each actor its own replica (same weights)
                     if (inference == Inference::per_env) eval = std::make_shared<RowByRowEvaluator>(eval);
                     return std::make_unique<GreedyPolicy>(eval, act);
                   });
  fleet.on_stop([&] {
    if (server) server->stop();
  });
  fleet.start();
  const double per_trajectory = static_cast<double>(o.envs * o.steps_per_trajectory);
  const double rate = median_rate(
      [&] {
        if (auto t = fleet.next_trajectory()) fleet.recycle(std::move(*t));
      }, per_trajectory, o.seconds, o.repeats);
  fleet.stop();
  if (mean_batch)
    *mean_batch = server && server->batches() ? static_cast<double>(server->rows_served()) / server->batches() : 0.0;
  return rate;
}

void bench_workload(const Workload& w, const RuntimeBenchOptions& o) {
  const auto probe = w.make_env();
  PolicyNet net(probe->observation_space(), probe->action_space(), w.hidden);
  const std::string prefix = "runtime/" + w.name + "/";
  const nlohmann::json base{{"envs_per_actor", o.envs}, {"hidden", {w.hidden, w.hidden}}};

  const double loop = single_loop_rate(w, net, false, o);
  print_bench_line(prefix + "single_loop_batched", loop, "env-steps/s", nullptr, base);
  const double loop_per_env = single_loop_rate(w, net, true, o);
  nlohmann::json e = base;
  e["baseline_name"] = "single_loop_batched";
  e["batched_speedup"] = loop / loop_per_env;
  e["goal_batched_speedup"] = 3.0;
  print_bench_line(prefix + "single_loop_per_env", loop_per_env, "env-steps/s", loop, e);

  for (Inference inf : {Inference::batched, Inference::server, Inference::per_env}) {
    double one = 0;
    for (int actors : {1, 2}) {
      double mean_batch = 0;
      const double rate = runtime_rate(w, net, actors, inf, o, &mean_batch);
      nlohmann::json x = base;
      x["actors"] = actors;
      x["inference"] = name_of(inf);
      if (inf == Inference::server) x["mean_server_batch"] = mean_batch;
      nlohmann::json baseline = loop;
      x["baseline_name"] = "single_loop_batched";
      if (actors == 1) {
        one = rate;
        x["ratio_to_single_loop"] = rate / loop;
      } else {
        baseline = one;
        x["baseline_name"] = fmt::format("runtime_1_actor_{}", name_of(inf));
        x["speedup_over_1_actor"] = rate / one;
        x["goal_speedup"] = 1.7;
      }
      print_bench_line(fmt::format("{}runtime_{}_actor{}_{}", prefix, actors, actors > 1 ? "s" : "", name_of(inf)),
                       rate, "env-steps/s", baseline, x);
    }
  }
}

// DQN training env-steps/s over the first dqn_steps steps: the synchronous loop
// (configs/dqn/CartPole-v1.yaml) against 2 actor threads at the same replay ratio
// (configs/dqn/CartPole-v1-actors.yaml), alternating, median of `repeats`.
void bench_dqn(const RuntimeBenchOptions& o) {
  auto rate_of = [&](const std::string& preset) {
    auto agent = Agent::from_preset(preset, {"checkpoint.every=0"});
    agent->set_progress_bar(false);
    const auto start = std::chrono::steady_clock::now();
    agent->learn(o.dqn_steps);
    return static_cast<double>(o.dqn_steps) /
           std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  std::vector<double> sync, parallel;
  for (int r = 0; r < o.repeats; ++r) {
    sync.push_back(rate_of(o.configs + "/dqn/CartPole-v1.yaml"));
    parallel.push_back(rate_of(o.configs + "/dqn/CartPole-v1-actors.yaml"));
  }
  std::sort(sync.begin(), sync.end());
  std::sort(parallel.begin(), parallel.end());
  const double s = sync[sync.size() / 2], p = parallel[parallel.size() / 2];
  const nlohmann::json extra{{"steps", o.dqn_steps}, {"repeats", o.repeats}};
  print_bench_line("runtime/dqn/CartPole-v1/train_single_loop", s, "env-steps/s", nullptr, extra);
  nlohmann::json x = extra;
  x["baseline_name"] = "train_single_loop";
  x["speedup"] = p / s;
  print_bench_line("runtime/dqn/CartPole-v1/train_2_actors", p, "env-steps/s", s, x);
}

void run_runtime_bench(const RuntimeBenchOptions& o) {
  configure_threads(1, 1);
  bench_workload({"CartPole-v1", [] { return make_env("CartPole-v1"); }, 64}, o);
  bench_workload({"synthetic17x6", [] { return std::make_unique<SyntheticEnv>(); }, 256}, o);
  if (o.dqn_steps > 0) bench_dqn(o);
}

}  // namespace

void add_runtime_bench_command(CLI::App& bench) {
  auto* cmd = bench.add_subcommand("runtime", "Env-steps/s with inference: single loop vs 1 and 2 actor threads");
  auto o = std::make_shared<RuntimeBenchOptions>();
  cmd->add_option("--seconds", o->seconds, "Seconds per timed repeat")->check(positive());
  cmd->add_option("--repeats", o->repeats, "Timed repeats (the median is printed)")->check(positive());
  cmd->add_option("--envs", o->envs, "Envs per actor (and of the single loop)")->check(positive());
  cmd->add_option("--dqn-steps", o->dqn_steps, "Env steps of each DQN training run (0: skip)")
      ->check(non_negative());
  cmd->add_option("--configs", o->configs, "Presets directory");
  cmd->callback([o] { run_runtime_bench(*o); });
}

}  // namespace rlzoo::cli
