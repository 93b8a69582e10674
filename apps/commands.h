// The `rlzoo` subcommands. Each add_* function attaches one command group to the app; the
// callbacks throw UserError for bad input, which main() prints as one line.
#pragma once

#include <CLI/CLI.hpp>

namespace rlzoo::cli {

void add_list_command(CLI::App& app);
void add_env_commands(CLI::App& app);
void add_bench_commands(CLI::App& app);

}  // namespace rlzoo::cli
