#include "tests/support/test_paths.h"

#include "core/checkpoint/durable_io.h"
#include "core/common/error.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <sys/wait.h>

namespace rlzoo::test {

std::optional<std::string> shared_dir() {
  if (const char* env = std::getenv("RLZOO_SHARED_DIR")) return std::string(env);
  if (std::filesystem::is_directory(RLZOO_SHARED_DIR)) return std::string(RLZOO_SHARED_DIR);
  return std::nullopt;
}

std::string source_dir() { return RLZOO_SOURCE_DIR; }
std::string cli_path() { return RLZOO_CLI_PATH; }
std::string cli_quoted() { return "'" RLZOO_CLI_PATH "'"; }

std::string read_file_or_empty(const std::string& path) {
  try {
    return durable::read_file(path);
  } catch (const UserError&) {
    return "";
  }
}

std::string make_temp_dir(const std::string& prefix) {
  namespace fs = std::filesystem;
  std::random_device rd;
  for (int i = 0; i < 100; ++i) {
    fs::path p = fs::temp_directory_path() / (prefix + "-" + std::to_string(rd()));
    if (fs::create_directory(p)) return p.string();
  }
  throw std::runtime_error("cannot create a temp dir");
}

CommandResult run_command(const std::string& command, const std::string& input) {
  const std::string dir = make_temp_dir("rlzoo-cmd");
  const std::string in = dir + "/stdin", out = dir + "/stdout", err = dir + "/stderr";
  std::ofstream(in, std::ios::binary) << input;
  const std::string full = command + " < '" + in + "' > '" + out + "' 2> '" + err + "'";
  const int raw = std::system(full.c_str());
  CommandResult r;
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  auto slurp = [](const std::string& p) {
    std::ifstream f(p, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
  };
  r.out = slurp(out);
  r.err = slurp(err);
  std::filesystem::remove_all(dir);
  return r;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

}  // namespace rlzoo::test
