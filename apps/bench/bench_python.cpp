// `rlzoo bench python`: env-steps/s of the Python-bound CartPole vector env
// (rlzoo.make_vec("CartPole-v1", 1024)) beside Gymnasium-style batching in pure Python and
// numpy, measured in the same run by python/rlzoo/bench.py. This command finds the `rlzoo`
// package built next to this executable, runs `python3 -m rlzoo.bench` with PYTHONPATH set to
// it, and relays its JSON lines (the child writes to our stdout).
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <memory>
#include <string>
#include <vector>

#include "apps/cli_checks.h"
#include "apps/app_paths.h"
#include "apps/commands.h"
#include "core/common/error.h"

#ifndef RLZOO_PYTHON_EXECUTABLE
#define RLZOO_PYTHON_EXECUTABLE "/usr/bin/python3"
#endif
#ifndef RLZOO_PYTHON_INSTALL_DIR
#define RLZOO_PYTHON_INSTALL_DIR "lib/python3/dist-packages"
#endif

namespace rlzoo::cli {

namespace {

namespace fs = std::filesystem;

struct PythonBenchOptions {
  std::string python = RLZOO_PYTHON_EXECUTABLE;
  double seconds = 0.5;
  int repeats = 5;
  int num_envs = 1024;
};

bool holds_bindings(const fs::path& dir) {
  std::error_code ec;
  if (!fs::exists(dir / "rlzoo" / "__init__.py", ec)) return false;
  for (const auto& f : fs::directory_iterator(dir / "rlzoo", ec))
    if (f.path().filename().string().starts_with("_rlzoo") && f.path().extension() == ".so") return true;
  return false;
}

// The directory to put on PYTHONPATH: build/python beside build/apps/rlzoo, or the installed
// package beside <prefix>/bin/rlzoo.
fs::path find_bindings() {
  const fs::path exe_dir = executable_path().parent_path();
  const std::vector<fs::path> candidates = {exe_dir.parent_path() / "python", exe_dir.parent_path() / RLZOO_PYTHON_INSTALL_DIR};
  for (const auto& c : candidates)
    if (holds_bindings(c)) return fs::weakly_canonical(c);
  std::string looked;
  for (const auto& c : candidates) looked += (looked.empty() ? "" : " and ") + (c / "rlzoo").string();
  throw UserError(fmt::format(
      "bench python: the Python bindings were not built (no rlzoo/_rlzoo*.so in {}); they need pybind11-dev, "
      "python3-dev and python3-numpy at configure time (scripts/setup installs them) and RLZOO_WITH_PYTHON=ON",
      looked));
}

void run_python_bench(const PythonBenchOptions& o) {
  const fs::path pythonpath = find_bindings();
  std::vector<std::string> args = {o.python, "-m", "rlzoo.bench", "--seconds", fmt::format("{}", o.seconds),
                                   "--repeats", std::to_string(o.repeats), "--num-envs", std::to_string(o.num_envs)};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const char* old = std::getenv("PYTHONPATH");
  const std::string path = pythonpath.string() + (old && *old ? std::string(":") + old : "");
  std::fflush(stdout);
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("bench python: fork failed");
  if (pid == 0) {
    setenv("PYTHONPATH", path.c_str(), 1);
    setenv("PYTHONUNBUFFERED", "1", 1);  // lines appear as they are measured
    execv(argv[0], argv.data());
    std::fprintf(stderr, "rlzoo: error: bench python: cannot run %s\n", argv[0]);
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw UserError(fmt::format("bench python: `{} -m rlzoo.bench` (PYTHONPATH={}) failed with {} {}", o.python,
                                pythonpath.string(), WIFEXITED(status) ? "exit status" : "signal",
                                WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status)));
}

}  // namespace

void add_python_bench_command(CLI::App& bench) {
  auto* cmd = bench.add_subcommand(
      "python", "Env-steps/s of the Python-bound CartPole vector env beside Gymnasium-style Python/numpy batching");
  auto o = std::make_shared<PythonBenchOptions>();
  cmd->add_option("--python", o->python, "Python interpreter (with numpy)")->capture_default_str();
  cmd->add_option("--seconds", o->seconds, "Seconds per timed repeat")->check(positive());
  cmd->add_option("--repeats", o->repeats, "Timed repeats (the median is printed)")->check(positive());
  cmd->add_option("--num-envs", o->num_envs, "Envs per batch")->check(positive());
  cmd->callback([o] { run_python_bench(*o); });
}

}  // namespace rlzoo::cli
