// `rlzoo train/eval/enjoy` end to end, and their user errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "tests/support/test_paths.h"

namespace rlzoo {
namespace {

using ::testing::HasSubstr;
namespace fs = std::filesystem;

test::CommandResult rlzoo(const std::string& args) {
  return test::run_command("cd '" + test::source_dir() + "' && '" + test::cli_path() + "' " + args);
}

int count_lines(const std::string& s) { return static_cast<int>(std::count(s.begin(), s.end(), '\n')); }

TEST(TrainCli, TrainEvalEnjoyResumeWriteTheRunDirectory) {
  const std::string run = test::make_temp_dir("rlzoo-train-cli") + "/run";
  auto r = rlzoo("train ppo CartPole-v1 --set n_timesteps=4096 --set checkpoint.every=2048 --seed 1 -q --run-dir " + run);
  ASSERT_EQ(r.status, 0) << r.err << r.out;
  for (const char* f : {"preset.yaml", "command.txt", "final/manifest.json", "logs/progress.csv",
                        "checkpoints/latest"})
    EXPECT_TRUE(fs::exists(fs::path(run) / f)) << f;
  std::ifstream preset(fs::path(run) / "preset.yaml");
  std::stringstream text;
  text << preset.rdbuf();
  EXPECT_THAT(text.str(), HasSubstr("seed: 1"));
  EXPECT_THAT(text.str(), HasSubstr("learning_rate:"));  // resolved: defaults written out

  r = rlzoo("eval " + run + " --episodes 3");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("mean return"));
  EXPECT_THAT(r.out, HasSubstr("over 3 episodes"));
  r = rlzoo("enjoy " + run + " -n 2");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("episode 2: return"));

  // Training again into the same directory is refused; resuming a finished run does nothing.
  r = rlzoo("train ppo CartPole-v1 -q --run-dir " + run);
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, HasSubstr("already holds a run; use --resume"));
  r = rlzoo("train --resume " + run + " -q");
  EXPECT_EQ(r.status, 0) << r.err;
}

TEST(TrainCli, BadInputIsOneClearLine) {
  auto r = rlzoo("train dqn Pendulum-v1 -q --run-dir /tmp/never-created-rlzoo-run");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_THAT(r.err, HasSubstr("needs a Discrete action space"));
  EXPECT_FALSE(fs::exists("/tmp/never-created-rlzoo-run"));  // nothing written before validation

  r = rlzoo("train ppo CartPole-v1 --set hyperparams.nsteps=3 -q");
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, HasSubstr("--set hyperparams.nsteps=3: key 'hyperparams.nsteps': unknown key (did you mean 'n_steps'?)"));

  const std::string dir = test::make_temp_dir("rlzoo-bad-preset");
  std::ofstream(dir + "/p.yaml") << "algo: ppo\nenv: CartPole-v1\nhyperparams:\n  gamma: high\n";
  r = rlzoo("train --preset " + dir + "/p.yaml -q");
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, HasSubstr("p.yaml:4:10: key 'hyperparams.gamma': expected a number, got 'high'"));

  r = rlzoo("eval /nonexistent/run");
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, HasSubstr("/nonexistent/run: no such agent or run directory"));
  r = rlzoo("train sac CartPole-v1 -q");
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, HasSubstr("unknown algorithm 'sac'"));
}

}  // namespace
}  // namespace rlzoo
