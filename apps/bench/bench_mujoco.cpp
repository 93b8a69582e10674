// `rlzoo bench mujoco`: env-steps/s of each MuJoCo task through the rlzoo env (the Env API:
// action checks, bookkeeping, observation, reward) beside a raw loop that does exactly the
// same physics on the same model (ctrl, mj_step x frame_skip, mj_rnePostConstraint, and the
// same resets), measured in the same run; then the threaded vector env on 1 and 2 threads.
//
// The env runs first with seeded random actions while the actions and the reset states are
// recorded; timed repeats then replay that trajectory through a fresh env and through the raw
// loop in lockstep chunks of 50 steps. The rates printed are medians over the repeats; the
// overhead is one minus the ratio of the chunks' fastest times, raw over env.
#include <mujoco/mujoco.h>

#include <algorithm>
#include <chrono>
#include <fmt/format.h>
#include <limits>
#include <memory>
#include <numeric>

#include "apps/bench/bench_util.h"
#include "apps/commands.h"
#include "core/registry/env_registry.h"
#include "core/vector/vector_env.h"
#include "envs/mujoco/mujoco_env.h"

namespace rlzoo::cli {

namespace {

struct MujocoBenchOptions {
  std::int64_t steps = 4000;  // recorded trajectory length per task
  int repeats = 5;
  std::int64_t vector_envs = 64;
  std::int64_t vector_steps = 100;
  std::vector<std::string> tasks{"HalfCheetah-v4", "Hopper-v4", "Walker2d-v4", "Ant-v4", "Humanoid-v4",
                                 "Swimmer-v4", "InvertedPendulum-v4", "InvertedDoublePendulum-v4", "Reacher-v4"};
};

struct Recording {
  std::vector<float> actions;                            // steps x nu
  std::vector<std::pair<std::int64_t, std::vector<double>>> resets;  // (before step k) -> state
};

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

Recording record(const std::string& id, std::int64_t steps) {
  auto env = make_env(id);
  auto& mj = dynamic_cast<MujocoEnv&>(*env);
  const Space& act = env->action_space();
  const auto nu = static_cast<std::size_t>(act.numel());
  std::vector<double> obs(static_cast<std::size_t>(env->observation_space().numel()));
  Recording r;
  Rng rng(1);
  env->reset(0, std::as_writable_bytes(std::span(obs)));
  r.resets.emplace_back(0, mj.get_state());
  std::vector<float> a(nu);
  for (std::int64_t t = 0; t < steps; ++t) {
    for (std::size_t i = 0; i < nu; ++i) a[i] = static_cast<float>(rng.uniform(act.low()[i], act.high()[i]));
    r.actions.insert(r.actions.end(), a.begin(), a.end());
    if (env->step(std::span<const float>(a), std::as_writable_bytes(std::span(obs))).done()) {
      env->reset(std::nullopt, std::as_writable_bytes(std::span(obs)));
      r.resets.emplace_back(t + 1, mj.get_state());
    }
  }
  return r;
}

// The recording replayed through the rlzoo env and through a raw loop that does the same physics
// (ctrl, mj_step x frame_skip, mj_rnePostConstraint, and the same resets) in lockstep: each
// chunk of kChunkSteps steps is timed in both, one right after the other (which goes first
// alternates), so that both see the same moment of a machine whose speed drifts; every repeat
// replays the whole recording from its first reset.
constexpr std::int64_t kChunkSteps = 50;

struct LockstepTimes {
  std::vector<double> env_rates, raw_rates;  // steps/s of each repeat
  // Each chunk's fastest time over the repeats: the time least disturbed by other work.
  std::vector<double> best_env, best_raw;
};

LockstepTimes time_lockstep(const std::string& id, const mjModel* m, int frame_skip, const Recording& r,
                            std::int64_t steps, int repeats) {
  const std::int64_t chunks = (steps + kChunkSteps - 1) / kChunkSteps;
  LockstepTimes out;
  out.best_env.assign(static_cast<std::size_t>(chunks), std::numeric_limits<double>::infinity());
  out.best_raw = out.best_env;
  const auto nu = static_cast<std::size_t>(m->nu);
  for (int k = 0; k < repeats; ++k) {
    auto env = make_env(id);
    std::vector<double> obs(static_cast<std::size_t>(env->observation_space().numel()));
    env->reset(0, std::as_writable_bytes(std::span(obs)));
    const std::unique_ptr<mjData, decltype(&mj_deleteData)> data(mj_makeData(m), mj_deleteData);
    mjData* d = data.get();
    auto set = [&](const std::vector<double>& s) {
      mj_resetData(m, d);
      std::copy(s.begin(), s.begin() + m->nq, d->qpos);
      std::copy(s.begin() + m->nq, s.end(), d->qvel);
      mj_forward(m, d);
    };
    std::size_t next_reset = 1;
    set(r.resets[0].second);
    double env_total = 0, raw_total = 0;
    for (std::int64_t c = 0; c < chunks; ++c) {
      const std::int64_t lo = c * kChunkSteps, hi = std::min(steps, lo + kChunkSteps);
      auto run_env = [&] {
        const auto t0 = std::chrono::steady_clock::now();
        for (std::int64_t t = lo; t < hi; ++t) {
          const std::span<const float> a(r.actions.data() + static_cast<std::size_t>(t) * nu, nu);
          if (env->step(a, std::as_writable_bytes(std::span(obs))).done())
            env->reset(std::nullopt, std::as_writable_bytes(std::span(obs)));
        }
        return seconds_since(t0);
      };
      auto run_raw = [&] {
        const auto t0 = std::chrono::steady_clock::now();
        for (std::int64_t t = lo; t < hi; ++t) {
          if (next_reset < r.resets.size() && r.resets[next_reset].first == t) set(r.resets[next_reset++].second);
          for (std::size_t i = 0; i < nu; ++i) d->ctrl[i] = r.actions[static_cast<std::size_t>(t) * nu + i];
          for (int f = 0; f < frame_skip; ++f) mj_step(m, d);
          mj_rnePostConstraint(m, d);
        }
        return seconds_since(t0);
      };
      double e = 0, w = 0;
      if ((c + k) % 2 == 0) {
        w = run_raw();
        e = run_env();
      } else {
        e = run_env();
        w = run_raw();
      }
      env_total += e;
      raw_total += w;
      const auto i = static_cast<std::size_t>(c);
      out.best_env[i] = std::min(out.best_env[i], e);
      out.best_raw[i] = std::min(out.best_raw[i], w);
    }
    out.env_rates.push_back(static_cast<double>(steps) / env_total);
    out.raw_rates.push_back(static_cast<double>(steps) / raw_total);
  }
  return out;
}

void run_mujoco_bench(const MujocoBenchOptions& o) {
  for (const auto& id : o.tasks) {
    const Recording r = record(id, o.steps);
    auto probe = make_env(id);
    auto& mj = dynamic_cast<MujocoEnv&>(*probe);
    const LockstepTimes times = time_lockstep(id, mj.model(), mj.frame_skip(), r, o.steps, o.repeats);
    // The overhead from each chunk's fastest env time against its fastest raw time. Whole-run
    // timings, even alternated, moved by +-4% between runs (more than the 2% goal) because
    // other work on the machine lands on one or the other; under callgrind the env's own work is
    // 0.05% of a Humanoid step.
    const double best_env = std::accumulate(times.best_env.begin(), times.best_env.end(), 0.0);
    const double best_raw = std::accumulate(times.best_raw.begin(), times.best_raw.end(), 0.0);
    const double raw = median(times.raw_rates), env = median(times.env_rates);
    const nlohmann::json common{{"frame_skip", mj.frame_skip()}, {"steps", o.steps}, {"repeats", o.repeats},
                                {"resets", r.resets.size() - 1}};
    print_bench_line(fmt::format("mujoco/{}/raw_mj_step_loop", id), raw, "env-steps/s", nullptr, common);
    nlohmann::json e = common;
    e["baseline_name"] = "raw_mj_step_loop";
    e["overhead"] = 1.0 - best_raw / best_env;
    e["chunk_steps"] = kChunkSteps;
    e["goal_overhead_at_most"] = 0.02;
    print_bench_line(fmt::format("mujoco/{}/rlzoo_env", id), env, "env-steps/s", raw, e);

    // Threaded vector env, 1 vs 2 threads, on identical work: from reset(0), the same
    // vector_steps steps with the recorded random actions, timed from reset each repeat.
    double one = 0;
    const auto nu = static_cast<std::size_t>(probe->action_space().numel());
    const auto n = static_cast<std::size_t>(o.vector_envs);
    const std::size_t recorded = r.actions.size() / nu;
    for (int threads : {1, 2}) {
      ThreadedVectorEnv venv(make_envs(id, o.vector_envs), threads);
      std::vector<float> actions(n * nu);
      std::vector<double> rates;
      for (int k = 0; k < o.repeats; ++k) {
        venv.reset(0);
        const auto t0 = std::chrono::steady_clock::now();
        for (std::int64_t s = 0; s < o.vector_steps; ++s) {
          for (std::size_t e = 0; e < n; ++e) {
            const std::size_t row = (static_cast<std::size_t>(s) * n + e) % recorded;
            std::copy_n(r.actions.data() + row * nu, nu, actions.data() + e * nu);
          }
          venv.step(std::span<const float>(actions));
        }
        rates.push_back(static_cast<double>(o.vector_steps * o.vector_envs) / seconds_since(t0));
      }
      const double rate = median(rates);
      nlohmann::json x{{"threads", threads}, {"num_envs", o.vector_envs}, {"vector_steps", o.vector_steps}};
      if (threads == 1) {
        one = rate;
        x["baseline_name"] = "rlzoo_env";
        print_bench_line(fmt::format("mujoco/{}/threaded_vector_t1", id), rate, "env-steps/s", env, x);
      } else {
        x["baseline_name"] = "threaded_vector_t1";
        x["speedup"] = rate / one;
        x["goal_speedup"] = 1.8;
        print_bench_line(fmt::format("mujoco/{}/threaded_vector_t2", id), rate, "env-steps/s", one, x);
      }
    }
  }
  const nlohmann::json ref{{"reference", true}, {"source", "issue #5: raw figures per thread on this kind of machine"}};
  print_bench_line("reference/HalfCheetah-v4/raw", 38e3, "env-steps/s", nullptr, ref);
  print_bench_line("reference/Hopper-v4/raw", 16e3, "env-steps/s", nullptr, ref);
  print_bench_line("reference/Walker2d-v4/raw", 11e3, "env-steps/s", nullptr, ref);
  print_bench_line("reference/Ant-v4/raw", 5e3, "env-steps/s", nullptr, ref);
}

}  // namespace

void add_mujoco_bench_command(CLI::App& bench) {
  auto* cmd = bench.add_subcommand("mujoco", "Env-steps/s of the MuJoCo tasks beside a raw mj_step loop");
  auto o = std::make_shared<MujocoBenchOptions>();
  cmd->add_option("--steps", o->steps, "Steps of the recorded trajectory per task")->check(CLI::PositiveNumber);
  cmd->add_option("--repeats", o->repeats, "Timed repeats (the median is printed)")->check(CLI::PositiveNumber);
  cmd->add_option("--vector-envs", o->vector_envs, "Envs of the threaded vector env")->check(CLI::PositiveNumber);
  cmd->add_option("--vector-steps", o->vector_steps, "Vector steps per timed repeat")->check(CLI::PositiveNumber);
  cmd->add_option("--tasks", o->tasks, "Task ids (default: all nine)");
  cmd->callback([o] { run_mujoco_bench(*o); });
}

}  // namespace rlzoo::cli
