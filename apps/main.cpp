// rlzoo: the command-line entry point. User errors print one line to stderr and exit 2.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <fmt/format.h>

#include "apps/commands.h"
#include "core/common/error.h"
#include "envs/builtin.h"

int main(int argc, char** argv) {
  rlzoo::register_builtin_envs();
  CLI::App app{"rlzoo: reinforcement learning in C++ on LibTorch"};
  app.set_version_flag("--version", std::string("rlzoo ") + RLZOO_VERSION);
  app.require_subcommand(1);
  rlzoo::cli::add_list_command(app);
  rlzoo::cli::add_env_commands(app);
  rlzoo::cli::add_bench_commands(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const rlzoo::UserError& e) {
    std::fflush(stdout);
    fmt::print(stderr, "rlzoo: error: {}\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fflush(stdout);
    fmt::print(stderr, "rlzoo: internal error: {}\n", e.what());
    return 3;
  }
  return 0;
}
