// rlzoo: the command-line entry point. User errors print one line to stderr and exit 2.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <fmt/format.h>

#include "datasets/record_episodes.h"
#include "apps/cli_app.h"
#include "apps/commands.h"
#include "apps/parse_errors.h"
#include "core/common/error.h"
#include "core/platform/process_environment.h"
#include "core/runtime/thread_group.h"
#include "envs/builtin.h"
#ifdef RLZOO_WITH_TORCH
#include "algorithms/builtin.h"
#endif

int main(int argc, char** argv) {
  rlzoo::tune_process_environment(argv);  // may re-execute once: see core/platform/process_environment.h
  rlzoo::register_builtin_envs();
  rlzoo::data::register_dataset_wrappers();  // record_episodes (datasets/record_episodes.h)
#ifdef RLZOO_WITH_TORCH
  rlzoo::register_builtin_algorithms();
#endif
  std::string command_line;
  for (int i = 0; i < argc; ++i) command_line += (i ? " " : "") + std::string(argv[i]);
  CLI::App app{"rlzoo: reinforcement learning in C++ on LibTorch"};
  rlzoo::cli::add_all_commands(app, command_line);  // apps/cli_app.cpp
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) return app.exit(e);  // --help, --version
    std::fflush(stdout);
    fmt::print(stderr, "rlzoo: error: {}\n", rlzoo::cli::parse_error_message(app, e));
    return 2;
  } catch (const rlzoo::cli::Interrupted& i) {
    return 128 + i.signal;
  } catch (const rlzoo::cli::ExitWith& e) {
    return e.status;
  } catch (const rlzoo::ThreadError& e) {
    // A runtime thread failed: bad input (a UserError in an actor) is reported like any other.
    bool user_error = false;
    try {
      std::rethrow_exception(e.cause());
    } catch (const rlzoo::UserError&) {
      user_error = true;
    } catch (...) {
    }
    std::fflush(stdout);
    fmt::print(stderr, "rlzoo: {}: {}\n", user_error ? "error" : "internal error", e.what());
    return user_error ? 2 : 3;
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
