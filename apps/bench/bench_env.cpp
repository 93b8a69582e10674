// `rlzoo bench env`: env-steps/s of CartPole-v1 through the Env API, the sync vector env and
// the threaded vector env, each beside a raw inline C++ CartPole loop measured in the same run.
#include <cmath>
#include <fmt/format.h>
#include <memory>
#include <vector>

#include "apps/bench/bench_util.h"
#include "apps/bench/raw_cartpole.h"
#include "apps/commands.h"
#include "core/registry/env_registry.h"
#include "core/spaces/space_leaves.h"
#include "core/vector/vector_env.h"

namespace rlzoo::cli {

namespace {

using bench::random_cartpole_actions;
using bench::RawCartPole;

struct EnvBenchOptions {
  double seconds = 0.3;
  int repeats = 5;
};

void run_env_bench(const EnvBenchOptions& o) {
  const std::string id = "CartPole-v1";
  const auto actions = random_cartpole_actions(1 << 16);
  volatile float sink = 0;

  // Raw inline loop (the per-thread baseline).
  RawCartPole raw;
  raw.reset();
  std::int64_t t_raw = 0;
  const std::int64_t chunk = 100000;
  const double raw_rate = median_rate([&] { sink = sink + raw.run(actions, chunk, t_raw); }, chunk, o.seconds, o.repeats);
  print_bench_line("env/CartPole-v1/raw_inline_loop", raw_rate, "steps/s", nullptr, {{"threads", 1}});

  // One env through the Env API.
  {
    auto env = make_env(id);
    std::vector<std::byte> obs(env->observation_space().byte_size());
    env->reset(0, obs);
    std::int64_t t = 0;
    const double rate = median_rate(
        [&] {
          for (std::int64_t i = 0; i < chunk; ++i) {
            if (env->step(actions[static_cast<std::size_t>(t++) & 0xFFFF], obs).done()) env->reset(std::nullopt, obs);
          }
        },
        chunk, o.seconds, o.repeats);
    print_bench_line("env/CartPole-v1/single_env", rate, "steps/s", raw_rate,
                     {{"ratio_to_baseline", rate / raw_rate}, {"baseline_name", "raw_inline_loop"}});

    // What Env::step's NaN/Inf check of the observation and reward costs on its own (the same
    // all_finite call on a live observation), as a share of a whole single-env step.
    const Space& space = env->observation_space();
    double reward = 1.0;
    const double check_rate = median_rate(
        [&] {
          std::int64_t finite = 0;
          for (std::int64_t i = 0; i < chunk; ++i) {
            asm volatile("" : : "r"(obs.data()) : "memory");  // the observation is read afresh each time
            finite += (all_finite(space, obs) && std::isfinite(reward)) ? 1 : 0;
            reward += 1e-9;
          }
          sink = sink + static_cast<float>(finite);
        },
        chunk, o.seconds, o.repeats);
    print_bench_line("env/CartPole-v1/finite_check", check_rate, "checks/s", rate,
                     {{"share_of_single_env_step", rate / check_rate}, {"baseline_name", "single_env"}});
  }

  // Vector envs: one batch of actions per step, taken from the random table.
  auto bench_vector = [&](VectorEnv& venv, const std::string& name, double baseline, const std::string& baseline_name,
                          nlohmann::json extra) {
    const auto n = static_cast<std::size_t>(venv.num_envs());
    venv.reset(0);
    std::size_t offset = 0;
    const std::int64_t steps_per_call = std::max<std::int64_t>(1, 100000 / static_cast<std::int64_t>(n));
    const double rate = median_rate(
        [&] {
          for (std::int64_t s = 0; s < steps_per_call; ++s) {
            offset = (offset + 977) & 0x7FFF;
            if (offset + n > actions.size()) offset = 0;
            venv.step(std::span<const std::int64_t>(actions.data() + offset, n));
          }
        },
        static_cast<double>(steps_per_call * static_cast<std::int64_t>(n)), o.seconds, o.repeats);
    extra["ratio_to_baseline"] = rate / baseline;
    extra["baseline_name"] = baseline_name;
    extra["num_envs"] = n;
    print_bench_line(name, rate, "env-steps/s", baseline, extra);
    return rate;
  };
  for (int n : {1, 64, 1024}) {
    SyncVectorEnv venv(make_envs(id, n));
    bench_vector(venv, fmt::format("env/CartPole-v1/sync_vector_{}", n), raw_rate, "raw_inline_loop",
                 {{"threads", 1}});
  }
  double one_thread = 0;
  for (int threads : {1, 2}) {
    ThreadedVectorEnv venv(make_envs(id, 4096), threads);
    const double baseline = threads == 1 ? raw_rate : one_thread;
    const double rate = bench_vector(venv, fmt::format("env/CartPole-v1/threaded_vector_4096_t{}", threads), baseline,
                                     threads == 1 ? "raw_inline_loop" : "threaded_vector_4096_t1", {{"threads", threads}});
    if (threads == 1) one_thread = rate;
  }

  // Figures the issue gives for other systems on this kind of machine (not measured here).
  const nlohmann::json ref{{"reference", true}, {"source", "issue #2, measured on this kind of machine"}};
  print_bench_line("reference/gymnasium_numpy_vector_cartpole_1024", 16e6, "env-steps/s", nullptr, ref);
  print_bench_line("reference/gymnasium_python_cartpole", 140e3, "steps/s", nullptr, ref);
  print_bench_line("reference/raw_inline_loop_per_thread", 50e6, "steps/s", nullptr, ref);
}

}  // namespace

void add_env_bench_command(CLI::App& bench) {
  auto* cmd = bench.add_subcommand("env", "Env-steps/s of CartPole-v1: Env API, sync and threaded vector envs");
  auto o = std::make_shared<EnvBenchOptions>();
  cmd->add_option("--seconds", o->seconds, "Seconds per timed repeat")->check(CLI::PositiveNumber);
  cmd->add_option("--repeats", o->repeats, "Timed repeats (the median is printed)")->check(CLI::PositiveNumber);
  cmd->callback([o] { run_env_bench(*o); });
}

}  // namespace rlzoo::cli
