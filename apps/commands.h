// The `rlzoo` subcommands. Each add_* function attaches one command group to the app; the
// callbacks throw UserError for bad input, which main() prints as one line.
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <string>

namespace rlzoo::cli {

// Thrown after a run stopped cleanly on SIGINT/SIGTERM (its checkpoint written); main() exits
// with 128 + signal, as a shell expects of a process ended by that signal.
struct Interrupted {
  int signal;
};
// Thrown to end with a given exit status (`rlzoo launch` passes on its learners').
struct ExitWith {
  int status;
};

void add_list_command(CLI::App& app);
// `rlzoo info`: LibTorch, CUDA, cuDNN, NCCL, the GPUs found, each path's BLAS (apps/cmd_info.cpp).
void add_info_command(CLI::App& app);
// `rlzoo docs cli|presets`: docs/cli.md (walks app, the whole tree) and docs/presets.md.
void add_docs_command(CLI::App& app);
void add_env_commands(CLI::App& app);
void add_bench_commands(CLI::App& app);
// `rlzoo dataset ...`; collecting with a saved agent needs LibTorch, the rest does not.
void add_dataset_commands(CLI::App& app, const std::string& command_line);
#ifdef RLZOO_WITH_TORCH
// Returns the options `rlzoo train` fills (other command groups add to them).
std::shared_ptr<struct TrainOptions> add_train_commands(CLI::App& app, const std::string& command_line);
void add_doudizhu_commands(CLI::App& app);
// `rlzoo export RUN_DIR --format torchscript OUT.pt` (rl/export/, docs/export.md).
void add_export_command(CLI::App& app);
#endif
#ifdef RLZOO_WITH_GRPC
// `rlzoo learner`, `rlzoo actor` (distributed/).
// Also adds --learners/--rank/--rendezvous to `rlzoo train` (whose options are `train`).
void add_distributed_commands(CLI::App& app, const std::string& command_line, std::shared_ptr<TrainOptions> train);
#endif

}  // namespace rlzoo::cli
