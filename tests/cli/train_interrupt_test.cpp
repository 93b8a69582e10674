// SIGINT/SIGTERM during `rlzoo train`: the run stops after its current step (actors after
// theirs), writes a checkpoint that loads, skips final/, and exits with 128 + signal, within a
// bounded time; the synchronous loop and the actor runtime alike.
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <random>
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

// `rlzoo train` SIGKILLed at random moments while it checkpoints every 256 steps, then resumed,
// five times: after every kill the run's latest checkpoint loads, and the run goes on from it.
TEST(TrainInterrupt, SigkillWhileCheckpointingAlwaysLeavesAResumableRun) {
  const std::string run = test::make_temp_dir("rlzoo-sigkill") + "/run";
  const fs::path latest = fs::path(run) / "checkpoints" / "latest";
  std::mt19937 rng(7);
  std::string previous;
  for (int round = 0; round < 5; ++round) {
    std::vector<std::string> args{test::cli_path(), "train", "-q"};
    if (round == 0) {
      for (const char* a : {"ppo", "CartPole-v1", "--run-dir", run.c_str(), "--set", "n_timesteps=10000000", "--set",
                            "checkpoint.every=256", "--set", "hyperparams.n_steps=64", "--set", "hyperparams.n_envs=4"})
        args.emplace_back(a);
    } else {
      args.insert(args.end(), {"--resume", run});
    }
    test::ChildProcess child(args, test::source_dir(), run + "-" + std::to_string(round) + ".log");
    // A new checkpoint was written in this round: saving is going on; kill within 0-200 ms.
    const auto read_latest = [&] {
      std::ifstream in(latest);
      return std::string(std::istreambuf_iterator<char>(in), {});
    };
    ASSERT_TRUE(test::wait_until([&] { return fs::exists(latest) && read_latest() != previous; }, 60s))
        << "round " << round << ": no new checkpoint";
    std::this_thread::sleep_for(std::chrono::milliseconds(std::uniform_int_distribution<int>(0, 200)(rng)));
    child.kill_now();
    previous = read_latest();
    const auto r = test::run_command("'" + test::cli_path() + "' eval " + run + " --episodes 1");
    ASSERT_EQ(r.status, 0) << "round " << round << ": the latest checkpoint does not load: " << r.err;
  }
}

}  // namespace
}  // namespace rlzoo
