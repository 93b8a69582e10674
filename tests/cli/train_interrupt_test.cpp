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

#include "tests/support/child_process.h"
#include "tests/support/test_paths.h"

namespace rlzoo {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

void interrupt_run(const std::vector<std::string>& sets, int sig) {
  const std::string run = test::make_temp_dir("rlzoo-interrupt") + "/run";
  std::vector<std::string> args{test::cli_path(), "train", "-q", "--preset", "configs/dqn/CartPole-v1-actors.yaml",
                                "--run-dir", run, "--set", "log_every=500", "--set", "checkpoint.every=0"};
  for (const auto& s : sets) {
    args.push_back("--set");
    args.push_back(s);
  }
  test::ChildProcess child(args, test::source_dir(), (fs::path(run).parent_path() / "rlzoo.log").string());
  // Training has started (and the handlers are installed) once the first log dump is written.
  const fs::path progress = fs::path(run) / "logs" / "progress.csv";
  ASSERT_TRUE(test::wait_until([&] { return fs::exists(progress); }, 60s)) << "training did not start";
  const auto t0 = std::chrono::steady_clock::now();
  child.signal(sig);
  const int status = child.wait(30s);
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
