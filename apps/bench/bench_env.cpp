// `rlzoo bench env`: env-steps/s of CartPole-v1 through the Env API, the sync vector env and
// the threaded vector env, each beside a raw inline C++ CartPole loop measured in the same run.
#include <cmath>
#include <fmt/format.h>
#include <memory>
#include <vector>

#include "apps/cli_checks.h"
#include "apps/bench/bench_util.h"
#include "apps/bench/raw_cartpole.h"
#include "apps/commands.h"
#include "core/common/finite_floats.h"
#include "core/registry/env_registry.h"
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

  // Raw inline loop (the per-thread baseline). Every figure divided by it is timed in
  // alternation with it (paired_median_rates): its own line is the first pair's baseline.
  RawCartPole raw;
  raw.reset();
  std::int64_t t_raw = 0;
  const std::int64_t chunk = 100000;
  const auto raw_loop = [&] { sink = sink + raw.run(actions, chunk, t_raw); };

  // One env through the Env API.
  {
    auto env = make_env(id);
    std::vector<std::byte> obs(env->observation_space().byte_size());
    env->reset(0, obs);
    std::int64_t t = 0;
    const PairedRates p = paired_median_rates(
        [&] {
          for (std::int64_t i = 0; i < chunk; ++i) {
            if (env->step(actions[static_cast<std::size_t>(t++) & 0xFFFF], obs).done()) env->reset(std::nullopt, obs);
          }
        },
        chunk, raw_loop, chunk, o.seconds, o.repeats);
    print_bench_line("env/CartPole-v1/raw_inline_loop", p.baseline_rate, "steps/s", nullptr, {{"threads", 1}});
    print_bench_line("env/CartPole-v1/single_env", p.rate, "steps/s", p.baseline_rate,
                     {{"ratio_to_baseline", p.ratio}, {"baseline_name", "raw_inline_loop"}});
    const double rate = p.rate;

    // What Env::step's NaN/Inf check of the observation and reward costs on its own (the same
    // float32s_are_finite call on a live observation), as a share of a whole single-env step.
    const auto floats = static_cast<std::size_t>(env->observation_space().numel());
    double reward = 1.0;
    const double check_rate = median_rate(
        [&] {
          std::int64_t finite = 0;
          for (std::int64_t i = 0; i < chunk; ++i) {
            asm volatile("" : : "r"(obs.data()) : "memory");  // the observation is read afresh each time
            const bool ok = float32s_are_finite(reinterpret_cast<const float*>(obs.data()), floats);
            finite += (ok && std::isfinite(reward)) ? 1 : 0;
            reward += 1e-9;
          }
          sink = sink + static_cast<float>(finite);
        },
        chunk, o.seconds, o.repeats);
    print_bench_line("env/CartPole-v1/finite_check", check_rate, "checks/s", rate,
                     {{"share_of_single_env_step", rate / check_rate}, {"baseline_name", "single_env"}});
  }

  // Vector envs: one batch of actions per step, taken from the random table.
  // Vector envs: one batch of actions per step, taken from the random table; each timed in
  // alternation with a baseline (the raw loop, or the one-thread vector env for two threads).
  const auto vector_steps = [&](VectorEnv& venv, std::size_t& offset) {
    const auto n = static_cast<std::size_t>(venv.num_envs());
    const std::int64_t steps_per_call = std::max<std::int64_t>(1, 100000 / static_cast<std::int64_t>(n));
    for (std::int64_t s = 0; s < steps_per_call; ++s) {
      offset = (offset + 977) & 0x7FFF;
      if (offset + n > actions.size()) offset = 0;
      venv.step(std::span<const std::int64_t>(actions.data() + offset, n));
    }
    return static_cast<double>(steps_per_call * static_cast<std::int64_t>(n));
  };
  const auto print_vector = [&](const std::string& name, const PairedRates& p, const std::string& baseline_name,
                                std::int64_t n, int threads) {
    print_bench_line(name, p.rate, "env-steps/s", p.baseline_rate,
                     {{"ratio_to_baseline", p.ratio}, {"baseline_name", baseline_name}, {"num_envs", n},
                      {"threads", threads}});
  };
  for (int n : {1, 64, 1024}) {
    SyncVectorEnv venv(make_envs(id, n));
    venv.reset(0);
    std::size_t offset = 0;
    const double units = static_cast<double>(std::max(1, 100000 / n) * n);
    const PairedRates p = paired_median_rates([&] { vector_steps(venv, offset); }, units, raw_loop, chunk, o.seconds,
                                              o.repeats);
    print_vector(fmt::format("env/CartPole-v1/sync_vector_{}", n), p, "raw_inline_loop", n, 1);
  }
  {
    constexpr int kEnvs = 4096;
    ThreadedVectorEnv one(make_envs(id, kEnvs), 1), two(make_envs(id, kEnvs), 2);
    one.reset(0);
    two.reset(0);
    std::size_t offset_one = 0, offset_two = 0;
    const double units = static_cast<double>(std::max(1, 100000 / kEnvs) * kEnvs);
    const auto step_one = [&] { vector_steps(one, offset_one); };
    const PairedRates p1 = paired_median_rates(step_one, units, raw_loop, chunk, o.seconds, o.repeats);
    print_vector("env/CartPole-v1/threaded_vector_4096_t1", p1, "raw_inline_loop", kEnvs, 1);
    const PairedRates p2 =
        paired_median_rates([&] { vector_steps(two, offset_two); }, units, step_one, units, o.seconds, o.repeats);
    print_vector("env/CartPole-v1/threaded_vector_4096_t2", p2, "threaded_vector_4096_t1", kEnvs, 2);
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
  cmd->add_option("--seconds", o->seconds, "Seconds per timed repeat")->check(positive());
  cmd->add_option("--repeats", o->repeats, "Timed repeats (the median is printed)")->check(positive());
  cmd->callback([o] { run_env_bench(*o); });
}

}  // namespace rlzoo::cli
