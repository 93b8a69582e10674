// SIGINT/SIGTERM during `rlzoo train`: the run stops after its current step (actors after
// theirs), writes a checkpoint that loads, skips final/, and exits with 128 + signal, within a
// bounded time; the synchronous loop and the actor runtime alike.
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

#include "tests/support/test_paths.h"

namespace rlzoo {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

// Waits (bounded) for the child to exit; returns its wait status, or -1 on timeout (killed).
int wait_exit(pid_t pid, std::chrono::seconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  int status = 0;
  while (std::chrono::steady_clock::now() < deadline) {
    if (waitpid(pid, &status, WNOHANG) == pid) return status;
    std::this_thread::sleep_for(10ms);  // polling a child's exit, not synchronising threads
  }
  kill(pid, SIGKILL);
  waitpid(pid, &status, 0);
  return -1;
}

void interrupt_run(const std::vector<std::string>& sets, int sig) {
  const std::string run = test::make_temp_dir("rlzoo-interrupt") + "/run";
  std::vector<std::string> args{test::cli_path(), "train", "-q", "--preset", "configs/dqn/CartPole-v1-actors.yaml",
                                "--run-dir", run, "--set", "log_every=500", "--set", "checkpoint.every=0"};
  for (const auto& s : sets) {
    args.push_back("--set");
    args.push_back(s);
  }
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    if (chdir(test::source_dir().c_str()) != 0) _exit(120);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(121);
  }
  // Training has started (and the handlers are installed) once the first log dump is written.
  const fs::path progress = fs::path(run) / "logs" / "progress.csv";
  const auto deadline = std::chrono::steady_clock::now() + 60s;
  while (!fs::exists(progress) && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(10ms);
  ASSERT_TRUE(fs::exists(progress)) << "training did not start";
  const auto t0 = std::chrono::steady_clock::now();
  ASSERT_EQ(kill(pid, sig), 0);
  const int status = wait_exit(pid, 30s);
  ASSERT_NE(status, -1) << "rlzoo did not stop within 30 s of the signal";
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 30s);
  ASSERT_TRUE(WIFEXITED(status)) << "killed by the signal instead of stopping cleanly";
  EXPECT_EQ(WEXITSTATUS(status), 128 + sig);
  EXPECT_TRUE(fs::exists(fs::path(run) / "checkpoints" / "latest"));
  EXPECT_FALSE(fs::exists(fs::path(run) / "final")) << "an interrupted run is not a final agent";
  // The checkpoint loads and acts.
  const auto r = test::run_command("'" + test::cli_path() + "' eval " + run + " --episodes 2");
  EXPECT_EQ(r.status, 0) << r.err;
}

TEST(TrainInterrupt, SigtermStopsTheActorRuntimeWithACheckpoint) { interrupt_run({"n_timesteps=5000000"}, SIGTERM); }

TEST(TrainInterrupt, SigintStopsTheSynchronousLoopWithACheckpoint) {
  interrupt_run({"n_timesteps=5000000", "runtime.actors=0"}, SIGINT);
}

}  // namespace
}  // namespace rlzoo
