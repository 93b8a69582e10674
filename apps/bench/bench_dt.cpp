// `rlzoo bench dt`: the Decision Transformer's training speed (windows per second with the
// default model: K = 20, 3 layers, width 128, batch 64) against behaviour cloning on the same
// data (the baseline), at 1 and 2 threads, and its acting speed in the env (env steps per
// second while evaluating) against the env stepped with random actions (the baseline). The data
// are synthetic 1000-step episodes with Hopper-v4's spaces (speed does not depend on the values).
// The DT paper's code is quoted at ~0.3 s per training step on 2 CPU cores (issue #9): printed
// as a reference, not measured here.
#include <chrono>
#include <filesystem>
#include <fmt/format.h>

#include "rl/agent.h"
#include "datasets/dataset_writer.h"
#include "apps/bench/bench_dt.h"
#include "apps/bench/bench_util.h"
#include "apps/commands.h"
#include "core/common/rng.h"
#include "core/registry/env_registry.h"

namespace rlzoo::cli {

namespace {

struct DtBenchOptions {
  std::string env = "Hopper-v4";
  double seconds = 10;
  int repeats = 3;
};

double train_rate(const std::string& algo, const std::string& env, const std::string& data, int threads,
                  const DtBenchOptions& o) {
  auto agent = make_agent(algo, env,
                          {"hyperparams.dataset=" + data, fmt::format("torch_threads={}", threads), "log_every=1000000000"});
  agent->set_progress_bar(false);
  agent->learn(3);  // loads the data, warms up the allocator
  const std::int64_t steps = algo == "dt" ? 5 : 100;
  return median_rate([&] { agent->learn(steps); }, 64.0 * static_cast<double>(steps), o.seconds, o.repeats);
}

// Env steps per second of `evaluate` (10 episodes), and of the env with random actions.
std::pair<double, double> act_rates(const std::string& env_id, const std::string& data, const DtBenchOptions& o) {
  auto agent = make_agent("dt", env_id, {"hyperparams.dataset=" + data, "torch_threads=1"});
  std::int64_t steps = 0;
  const double dt = median_rate(
      [&] {
        const auto r = agent->evaluate(10);
        steps = 0;
        for (auto l : r.lengths) steps += l;
      },
      1.0, o.seconds, o.repeats);
  const double dt_steps_per_s = dt * static_cast<double>(steps);  // evaluations/s x steps per evaluation
  auto env = make_env(env_id);
  std::vector<std::byte> obs(env->observation_space().byte_size()), act(env->action_space().byte_size());
  Rng rng(2);
  env->reset(0, obs);
  const double raw = median_rate(
      [&] {
        for (int i = 0; i < 1000; ++i) {
          env->action_space().sample(rng, act);
          if (env->step(act, obs).done()) env->reset(std::nullopt, obs);
        }
      },
      1000.0, o.seconds, o.repeats);
  return {dt_steps_per_s, raw};
}

void run(const DtBenchOptions& o) {
  const std::string data = synthetic_dt_dataset(o.env);
  for (int threads : {1, 2}) {
    const double bc = train_rate("bc", o.env, data, threads, o);
    print_bench_line(fmt::format("dt/bc/{}/threads_{}/train_samples_per_s", o.env, threads), bc, "windows/s", nullptr,
                     {{"note", "behaviour cloning (MLP on the last 20 states), same data and batch: the baseline"}});
    const double dt = train_rate("dt", o.env, data, threads, o);
    print_bench_line(fmt::format("dt/dt/{}/threads_{}/train_samples_per_s", o.env, threads), dt, "windows/s", bc,
                     {{"seconds_per_step", 64.0 / dt},
                      {"reference_seconds_per_step", 0.3},
                      {"reference_note", "the DT paper's PyTorch code on 2 CPU cores, as quoted in issue #9; not "
                                         "measured here"}});
  }
  const auto [dt_steps, raw_steps] = act_rates(o.env, data, o);
  print_bench_line(fmt::format("dt/dt/{}/eval_env_steps_per_s", o.env), dt_steps, "env-steps/s", raw_steps,
                   {{"note", "baseline: the env alone with random actions"}, {"episodes_batched", 10}});
}

}  // namespace

std::string synthetic_dt_dataset(const std::string& env_id) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / fmt::format("rlzoo-bench-dt-{}", env_id);
  auto env = make_env(env_id);
  const Space& obs = env->observation_space();
  const Space& act = env->action_space();
  data::DatasetWriter out(dir, env_id, obs, act, {{"made_by", "rlzoo bench dt (synthetic)"}},
                          data::WriterOptions{.overwrite = true});
  Rng rng(1);
  for (int ep = 0; ep < 20; ++ep) {
    data::EpisodeData e;
    const std::int64_t T = 1000;
    e.observations.resize(static_cast<std::size_t>(T) * obs.byte_size());
    e.actions.resize(static_cast<std::size_t>(T) * act.byte_size());
    for (std::int64_t t = 0; t < T; ++t) {
      // Random in-bounds values are fine for timing.
      act.sample(rng, Bytes(e.actions.data() + t * static_cast<std::int64_t>(act.byte_size()), act.byte_size()));
      obs.sample(rng, Bytes(e.observations.data() + t * static_cast<std::int64_t>(obs.byte_size()), obs.byte_size()));
      e.rewards.push_back(static_cast<float>(rng.uniform(0.0, 3.0)));
    }
    e.truncated = true;
    out.add(e);
  }
  out.close();
  return dir.string();
}

void add_dt_bench_command(CLI::App& bench) {
  auto o = std::make_shared<DtBenchOptions>();
  auto* cmd = bench.add_subcommand("dt", "Decision Transformer training and acting speed (BC and the raw env as baselines)");
  cmd->add_option("--env", o->env, "Env whose spaces the synthetic data take (a float-Box observation)");
  cmd->add_option("--seconds", o->seconds, "Seconds per timing repeat");
  cmd->add_option("--repeats", o->repeats, "Timing repeats (the median is printed)");
  cmd->callback([o] { run(*o); });
}

}  // namespace rlzoo::cli
