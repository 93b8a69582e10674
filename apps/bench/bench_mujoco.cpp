// `rlzoo bench mujoco`: env-steps/s of each MuJoCo task through the rlzoo env (the Env API:
// action checks, bookkeeping, observation, reward) beside a raw loop that does exactly the
// same physics on the same model (ctrl, mj_step x frame_skip, mj_rnePostConstraint, and the
// same resets), measured in the same run; then the threaded vector env on 1 and 2 threads.
//
// The env runs first with seeded random actions while the actions and the reset states are
// recorded; timed repeats then replay that trajectory through a fresh env, through the raw loop
// and through a second raw loop (the control) in lockstep chunks of 10 steps. The rates printed
// are medians over the repeats; the overhead is one minus the ratio of the chunks' fastest
// times, raw over env, and the noise floor the same figure for the control.
#include <mujoco/mujoco.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <fmt/format.h>
#include <limits>
#include <memory>
#include <numeric>

#include "apps/cli_checks.h"
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
// chunk of kChunkSteps steps is timed in each, one right after the other (which goes first
// rotates), so that all see the same moment of a machine whose speed drifts; every repeat
// replays the whole recording from its first reset. A second raw loop on its own mjData is
// timed in the same rotation as a control: its "overhead" against the first is the noise floor
// of the measurement in this run.
// Ten steps last 0.3-6 ms (Reacher to Humanoid on the 2-core machines), mostly shorter than the
// kernel's 4 ms scheduling tick, so most chunks have a repeat that nothing interrupted; with 50
// steps nearly every chunk of the lighter tasks held a tick or another process's slice, and
// single runs read up to 3-6% on tasks whose own work is under 1% of the instructions.
constexpr std::int64_t kChunkSteps = 10;

// The raw loop: the recorded actions and resets on its own mjData.
class RawReplay {
 public:
  RawReplay(const mjModel* m, int frame_skip, const Recording& r)
      : m_(m), frame_skip_(frame_skip), r_(r), data_(mj_makeData(m), mj_deleteData) {
    set(r.resets[0].second);
  }
  void run(std::int64_t lo, std::int64_t hi) {
    mjData* d = data_.get();
    const auto nu = static_cast<std::size_t>(m_->nu);
    for (std::int64_t t = lo; t < hi; ++t) {
      for (std::size_t i = 0; i < nu; ++i) d->ctrl[i] = r_.actions[static_cast<std::size_t>(t) * nu + i];
      for (int f = 0; f < frame_skip_; ++f) mj_step(m_, d);
      mj_rnePostConstraint(m_, d);
      // Where the env resets: right after the step that ended the episode, in the same chunk.
      if (next_reset_ < r_.resets.size() && r_.resets[next_reset_].first == t + 1) set(r_.resets[next_reset_++].second);
    }
  }

 private:
  void set(const std::vector<double>& s) {
    mjData* d = data_.get();
    mj_resetData(m_, d);
    std::copy(s.begin(), s.begin() + m_->nq, d->qpos);
    std::copy(s.begin() + m_->nq, s.end(), d->qvel);
    mj_forward(m_, d);
  }
  const mjModel* m_;
  int frame_skip_;
  const Recording& r_;
  std::unique_ptr<mjData, decltype(&mj_deleteData)> data_;
  std::size_t next_reset_ = 1;
};

// What is timed, in the order of LockstepTimes' vectors.
enum Subject : std::size_t { kRaw, kEnv, kControl, kSubjects };

struct LockstepTimes {
  std::array<std::vector<double>, kSubjects> rates;  // steps/s of each repeat
  // Each chunk's fastest time over the repeats: the time least disturbed by other work.
  std::array<std::vector<double>, kSubjects> best;
  // One minus the ratio of the summed fastest chunk times, the raw loop's over `s`'s.
  double overhead(Subject s) const {
    const double raw = std::accumulate(best[kRaw].begin(), best[kRaw].end(), 0.0);
    return 1.0 - raw / std::accumulate(best[s].begin(), best[s].end(), 0.0);
  }
};

LockstepTimes time_lockstep(const std::string& id, const mjModel* m, int frame_skip, const Recording& r,
                            std::int64_t steps, int repeats) {
  const std::int64_t chunks = (steps + kChunkSteps - 1) / kChunkSteps;
  LockstepTimes out;
  for (auto& b : out.best) b.assign(static_cast<std::size_t>(chunks), std::numeric_limits<double>::infinity());
  const auto nu = static_cast<std::size_t>(m->nu);
  for (int k = 0; k < repeats; ++k) {
    auto env = make_env(id);
    std::vector<double> obs(static_cast<std::size_t>(env->observation_space().numel()));
    env->reset(0, std::as_writable_bytes(std::span(obs)));
    RawReplay raw(m, frame_skip, r), control(m, frame_skip, r);
    std::array<double, kSubjects> total{};
    for (std::int64_t c = 0; c < chunks; ++c) {
      const std::int64_t lo = c * kChunkSteps, hi = std::min(steps, lo + kChunkSteps);
      const auto run = [&](std::size_t s) {
        const auto t0 = std::chrono::steady_clock::now();
        if (s == kEnv) {
          for (std::int64_t t = lo; t < hi; ++t) {
            const std::span<const float> a(r.actions.data() + static_cast<std::size_t>(t) * nu, nu);
            if (env->step(a, std::as_writable_bytes(std::span(obs))).done())
              env->reset(std::nullopt, std::as_writable_bytes(std::span(obs)));
          }
        } else {
          (s == kRaw ? raw : control).run(lo, hi);
        }
        return seconds_since(t0);
      };
      for (std::size_t j = 0; j < kSubjects; ++j) {
        const std::size_t s = (static_cast<std::size_t>(c + k) + j) % kSubjects;
        const double w = run(s);
        total[s] += w;
        out.best[s][static_cast<std::size_t>(c)] = std::min(out.best[s][static_cast<std::size_t>(c)], w);
      }
    }
    for (std::size_t s = 0; s < kSubjects; ++s) out.rates[s].push_back(static_cast<double>(steps) / total[s]);
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
    // 0.05% of a Humanoid step and 0.5% of a Reacher step.
    const double raw = median(times.rates[kRaw]), env = median(times.rates[kEnv]);
    const nlohmann::json common{{"frame_skip", mj.frame_skip()}, {"steps", o.steps}, {"repeats", o.repeats},
                                {"resets", r.resets.size() - 1}};
    print_bench_line(fmt::format("mujoco/{}/raw_mj_step_loop", id), raw, "env-steps/s", nullptr, common);
    nlohmann::json e = common;
    e["baseline_name"] = "raw_mj_step_loop";
    e["overhead"] = times.overhead(kEnv);
    // The same figure for a second raw loop: what the measurement reads where there is no overhead.
    e["noise_floor"] = times.overhead(kControl);
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
  cmd->add_option("--steps", o->steps, "Steps of the recorded trajectory per task")->check(positive());
  cmd->add_option("--repeats", o->repeats, "Timed repeats (the median is printed)")->check(positive());
  cmd->add_option("--vector-envs", o->vector_envs, "Envs of the threaded vector env")->check(positive());
  cmd->add_option("--vector-steps", o->vector_steps, "Vector steps per timed repeat")->check(positive());
  cmd->add_option("--tasks", o->tasks, "Task ids (default: all nine)");
  cmd->callback([o] { run_mujoco_bench(*o); });
}

}  // namespace rlzoo::cli
