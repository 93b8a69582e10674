#include "tests/support/test_paths.h"

#include "core/checkpoint/durable_io.h"
#include "core/common/error.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <random>
#include <sstream>
#include <vector>

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

namespace {

// The directories make_temp_dir made, each with the process that made it: a forked child
// inherits the list but must not remove its parent's directories when it exits.
struct MadeDir {
  std::string path;
  pid_t owner;
};
std::mutex made_mutex;
std::vector<MadeDir>* made_dirs = nullptr;  // never freed: the exit handler still reads it

// At exit: removes what this process made, unless a test failed (the dirs are then evidence,
// and the failure messages name them) or RLZOO_KEEP_TEST_TMP is set.
void remove_made_dirs() {
  std::lock_guard<std::mutex> lock(made_mutex);
  const pid_t self = getpid();
  std::vector<std::string> mine;
  for (const MadeDir& d : *made_dirs)
    if (d.owner == self) mine.push_back(d.path);
  if (mine.empty()) return;
  const bool failed = ::testing::UnitTest::GetInstance()->Failed();
  if (failed || std::getenv("RLZOO_KEEP_TEST_TMP") != nullptr) {
    std::fprintf(stderr, "kept %zu test dir(s), the first %s (%s)\n", mine.size(), mine.front().c_str(),
                 failed ? "a test failed" : "RLZOO_KEEP_TEST_TMP is set");
    return;
  }
  for (const std::string& path : mine) {
    std::error_code ec;  // a dir a test removed itself is fine; nothing here may throw
    std::filesystem::remove_all(path, ec);
  }
}

void remember_made_dir(const std::string& path) {
  std::lock_guard<std::mutex> lock(made_mutex);
  if (made_dirs == nullptr) {
    made_dirs = new std::vector<MadeDir>();
    std::atexit(remove_made_dirs);
  }
  made_dirs->push_back({path, getpid()});
}

}  // namespace

std::string make_temp_dir(const std::string& prefix) {
  namespace fs = std::filesystem;
  std::random_device rd;
  for (int i = 0; i < 100; ++i) {
    fs::path p = fs::temp_directory_path() / (prefix + "-" + std::to_string(rd()));
    if (fs::create_directory(p)) {
      remember_made_dir(p.string());
      return p.string();
    }
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
