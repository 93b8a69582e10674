// `rlzoo bench ...`: benchmarks printing one JSON object per line.
#include "apps/commands.h"

namespace rlzoo::cli {

void add_env_bench_command(CLI::App& bench);
void add_python_bench_command(CLI::App& bench);  // apps/bench/bench_python.cpp: runs python/rlzoo/bench.py
#ifdef RLZOO_WITH_MUJOCO
void add_mujoco_bench_command(CLI::App& bench);
#endif
#ifdef RLZOO_WITH_TORCH
void add_train_bench_command(CLI::App& bench);
void add_learner_bench_command(CLI::App& bench);
void add_runtime_bench_command(CLI::App& bench);
void add_doudizhu_bench_command(CLI::App& bench);
void add_secbad_bench_command(CLI::App& bench);
void add_dt_bench_command(CLI::App& bench);
void add_gpu_bench_command(CLI::App& bench);
#endif
#if defined(RLZOO_WITH_TORCH) && defined(RLZOO_WITH_GRPC)
void add_distributed_bench_command(CLI::App& bench);
#endif

void add_bench_commands(CLI::App& app) {
  auto* bench = app.add_subcommand("bench", "Benchmarks (JSON lines: bench, value, unit, baseline)");
  bench->require_subcommand(1);
  add_env_bench_command(*bench);
  add_python_bench_command(*bench);
#ifdef RLZOO_WITH_MUJOCO
  add_mujoco_bench_command(*bench);
#endif
#ifdef RLZOO_WITH_TORCH
  add_train_bench_command(*bench);
  add_learner_bench_command(*bench);
  add_runtime_bench_command(*bench);
  add_doudizhu_bench_command(*bench);
  add_secbad_bench_command(*bench);
  add_dt_bench_command(*bench);
  add_gpu_bench_command(*bench);
#endif
#if defined(RLZOO_WITH_TORCH) && defined(RLZOO_WITH_GRPC)
  add_distributed_bench_command(*bench);
#endif
}

}  // namespace rlzoo::cli
