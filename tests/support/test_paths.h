// Paths the tests need, fixed at configure time.
#pragma once

#include <functional>
#include <optional>
#include <string>

namespace rlzoo::test {

// ../shared beside the checkout, or nullopt when it is absent (tests then skip with a message).
std::optional<std::string> shared_dir();
std::string source_dir();
// The built `rlzoo` executable; cli_quoted(): the same in single quotes, to start a shell command.
std::string cli_path();
std::string cli_quoted();
// The whole content of a file (durable::read_file); "" when it cannot be read (not there yet, say).
std::string read_file_or_empty(const std::string& path);
// A fresh empty directory under the system temp dir. The process that made it removes it when
// it exits, unless a test failed or RLZOO_KEEP_TEST_TMP is set (then it says what it kept).
std::string make_temp_dir(const std::string& prefix);

// Runs a shell command, feeding `input` on stdin; returns exit status and stdout (stderr is
// captured into `err` when given).
struct CommandResult {
  int status = -1;
  std::string out;
  std::string err;
};
CommandResult run_command(const std::string& command, const std::string& input = "");

// The message of the UserError (or subclass) that f throws, or "" when it throws none.
std::string error_of(const std::function<void()>& f);

}  // namespace rlzoo::test
