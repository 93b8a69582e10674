// SIGINT/SIGTERM during `rlzoo train`: the run stops after its current step (actors after
// theirs), writes a checkpoint that loads, skips final/, and exits with 128 + signal, within a
// bounded time; the synchronous loop and the actor runtime alike.
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <random>
#include <sstream>
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
  const auto r = test::run_command(test::cli_quoted() + " eval " + run + " --episodes 2");
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
    const auto r = test::run_command(test::cli_quoted() + " eval " + run + " --episodes 1");
    ASSERT_EQ(r.status, 0) << "round " << round << ": the latest checkpoint does not load: " << r.err;
  }
}

// The rows of a progress.csv: column name -> values, in row order (empty cells skipped). A last
// line still being written (no line break yet) is left out.
std::map<std::string, std::vector<double>> read_progress(const fs::path& path) {
  std::ifstream file(path);
  std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  text.erase(text.find_last_of('\n') == std::string::npos ? 0 : text.find_last_of('\n') + 1);
  std::istringstream in(text);
  std::string line;
  std::vector<std::string> header;
  std::map<std::string, std::vector<double>> columns;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::stringstream row(line);
    for (std::string cell; std::getline(row, cell, ',');) cells.push_back(cell);
    if (header.empty()) {
      header = cells;
      continue;
    }
    for (std::size_t i = 0; i < cells.size() && i < header.size(); ++i)
      if (!cells[i].empty()) columns[header[i]].push_back(std::stod(cells[i]));
  }
  return columns;
}

// K7 (docs/reliability.md): a run killed and resumed twice keeps one progress.csv whose steps
// only grow (rows logged after the checkpoint a resume starts from are replaced, not repeated)
// and whose episode count goes on instead of starting again.
TEST(TrainInterrupt, AResumedRunContinuesItsProgressLogAndEpisodeCount) {
  const std::string run = test::make_temp_dir("rlzoo-resume-log") + "/run";
  const fs::path progress = fs::path(run) / "logs" / "progress.csv";
  double logged_until = 0;
  for (int round = 0; round < 3; ++round) {
    std::vector<std::string> args{test::cli_path(), "train", "-q"};
    if (round == 0) {
      for (const char* a : {"ppo", "CartPole-v1", "--run-dir", run.c_str(), "--set", "n_timesteps=10000000", "--set",
                            "checkpoint.every=1024", "--set", "log_every=256", "--set", "hyperparams.n_steps=64",
                            "--set", "hyperparams.n_envs=4"})
        args.emplace_back(a);
    } else {
      args.insert(args.end(), {"--resume", run});
    }
    test::ChildProcess child(args, test::source_dir(), run + "-" + std::to_string(round) + ".log");
    // Wait until this round has logged 2048 steps past the last, then kill it (SIGKILL twice:
    // rows after the latest checkpoint are left behind; SIGINT at the end: a clean stop).
    const double target = logged_until + 2048;
    ASSERT_TRUE(test::wait_until(
        [&] {
          const auto steps = read_progress(progress)["time/total_timesteps"];
          return !steps.empty() && steps.back() >= target;
        },
        120s))
        << "round " << round << ": the log did not reach step " << target;
    if (round < 2) {
      child.kill_now();
    } else {
      child.signal(SIGINT);
      ASSERT_NE(child.wait(30s), -1);
    }
    logged_until = read_progress(progress)["time/total_timesteps"].back();
  }
  auto log = read_progress(progress);
  const auto& steps = log["time/total_timesteps"];
  const auto& episodes = log["time/episodes"];
  ASSERT_GE(steps.size(), 3u * 2048 / 256 - 2);
  EXPECT_LE(steps.front(), 512);  // the first round's rows are still there
  for (std::size_t i = 1; i < steps.size(); ++i) EXPECT_GT(steps[i], steps[i - 1]) << "row " << i;
  ASSERT_EQ(episodes.size(), steps.size());
  for (std::size_t i = 1; i < episodes.size(); ++i) EXPECT_GE(episodes[i], episodes[i - 1]) << "row " << i;
  EXPECT_GT(episodes.back(), 50);  // CartPole episodes are short at first: ~6000 steps hold many
}

}  // namespace
}  // namespace rlzoo
