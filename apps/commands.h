// The `rlzoo` subcommands. Each add_* function attaches one command group to the app; the
// callbacks throw UserError for bad input, which main() prints as one line.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace rlzoo::cli {

// Thrown after a run stopped cleanly on SIGINT/SIGTERM (its checkpoint written); main() exits
// with 128 + signal, as a shell expects of a process ended by that signal.
struct Interrupted {
  int signal;
};

void add_list_command(CLI::App& app);
void add_env_commands(CLI::App& app);
void add_bench_commands(CLI::App& app);
// `rlzoo dataset ...`; collecting with a saved agent needs LibTorch, the rest does not.
void add_dataset_commands(CLI::App& app, const std::string& command_line);
#ifdef RLZOO_WITH_TORCH
void add_train_commands(CLI::App& app, const std::string& command_line);
void add_doudizhu_commands(CLI::App& app);
#endif
#ifdef RLZOO_WITH_GRPC
// `rlzoo learner`, `rlzoo actor` (distributed/).
void add_distributed_commands(CLI::App& app, const std::string& command_line);
#endif

}  // namespace rlzoo::cli
