// The whole `rlzoo` command tree, built without running anything: main() parses it and
// `rlzoo docs cli` walks it to print docs/cli.md. A new command group is added here (its
// add_* function declared in apps/commands.h), so that both see it.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace rlzoo::cli {

// Adds --version and every subcommand to app. command_line: the process's arguments joined
// with spaces (recorded by `rlzoo train` in its run directory). Registries are not touched:
// main() fills them (envs, wrappers, algorithms) before parsing.
void add_all_commands(CLI::App& app, const std::string& command_line);

}  // namespace rlzoo::cli
