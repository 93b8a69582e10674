// `rlzoo train/eval/enjoy` end to end, and their user errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "tests/support/test_paths.h"

namespace rlzoo {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
namespace fs = std::filesystem;

test::CommandResult rlzoo(const std::string& args) {
  return test::run_command("cd '" + test::source_dir() + "' && '" + test::cli_path() + "' " + args);
}

int count_lines(const std::string& s) { return static_cast<int>(std::count(s.begin(), s.end(), '\n')); }

TEST(TrainCli, TrainEvalEnjoyResumeWriteTheRunDirectory) {
  const std::string run = test::make_temp_dir("rlzoo-train-cli") + "/run";
  auto r = rlzoo("train ppo CartPole-v1 --no-preset --set n_timesteps=4096 --set checkpoint.every=2048 --seed 1 -q --run-dir " + run);
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

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void spit(const fs::path& p, const std::string& text) { std::ofstream(p) << text; }

// Replaces the first `from` in the file by `to`; the test fails when there is none.
void edit(const fs::path& p, const std::string& from, const std::string& to) {
  std::string text = slurp(p);
  const auto at = text.find(from);
  ASSERT_NE(at, std::string::npos) << from << " not in " << p;
  spit(p, text.replace(at, from.size(), to));
}

// A run directory that was interrupted at step 2048 of 4096 (its later checkpoints and final
// agent removed), so that `train --resume` has work to do.
std::string interrupted_run() {
  const std::string run = test::make_temp_dir("rlzoo-resume-cli") + "/run";
  const auto r = rlzoo("train ppo CartPole-v1 --no-preset --set n_timesteps=4096 --set checkpoint.every=1024 --set checkpoint.keep=5 "
                       "--seed 2 -q --run-dir " + run);
  EXPECT_EQ(r.status, 0) << r.err;
  fs::remove_all(fs::path(run) / "final");
  fs::remove_all(fs::path(run) / "checkpoints" / "ckpt_000000003072");
  fs::remove_all(fs::path(run) / "checkpoints" / "ckpt_000000004096");
  spit(fs::path(run) / "checkpoints" / "latest", "ckpt_000000002048\n");
  return run;
}

TEST(TrainCli, ResumeRefusesAnIncompatibleCheckpointNamingTheField) {
  const std::string run = interrupted_run();
  const fs::path manifest = fs::path(run) / "checkpoints" / "ckpt_000000002048" / "manifest.json";
  const std::string manifest_text = slurp(manifest), preset_text = slurp(fs::path(run) / "preset.yaml");

  // Written by an rlzoo of another minor version (0.x: formats may change between them).
  edit(manifest, "\"rlzoo_version\": \"", "\"rlzoo_version\": \"0.99.");
  auto r = rlzoo("train --resume " + run + " -q");
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_THAT(r.err, HasSubstr("field rlzoo_version differs: the checkpoint was written by rlzoo 0.99."));
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  spit(manifest, manifest_text);

  // The run's config and its checkpoint's differ (edited, or a checkpoint copied from another run).
  edit(fs::path(run) / "preset.yaml", "learning_rate: ", "learning_rate: 0.5");
  r = rlzoo("train --resume " + run + " -q");
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_THAT(r.err, HasSubstr("field hyperparams.learning_rate differs: 0.5"));
  spit(fs::path(run) / "preset.yaml", preset_text);

  // A resumed run keeps its config: no --set but a larger budget, nothing else.
  r = rlzoo("train --resume " + run + " --set seed=5 -q");
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, HasSubstr("--set seed=5: only n_timesteps=N (a larger budget, to train longer) is taken"));
  r = rlzoo("train --resume " + run + " --set n_timesteps=1024 -q");
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, HasSubstr("the run is at 2048 steps already"));

  // A run started before a common key existed (its preset.yaml has no runtime.backend, which
  // later checkpoints write): with the defaults filled in, the two agree.
  edit(fs::path(run) / "preset.yaml", "  backend: auto\n", "");

  // Nothing of that changed the run: it resumes and finishes.
  r = rlzoo("train --resume " + run + " -q");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(fs::exists(fs::path(run) / "final" / "manifest.json"));
  EXPECT_TRUE(fs::exists(fs::path(run) / "checkpoints" / "ckpt_000000004096"));
}

std::string preset_of(const std::string& run) { return slurp(fs::path(run) / "preset.yaml"); }

// ALGO ENV trains with the shipped tuned preset for the pair and says which; --no-preset takes
// the algorithm's defaults; --preset finds a shipped preset by name from any folder.
TEST(TrainCli, AlgoEnvUsesTheShippedPresetAndNamesIt) {
  const std::string base = test::make_temp_dir("rlzoo-shipped-preset");
  auto r = rlzoo("train ppo CartPole-v1 -q --set n_timesteps=256 --run-dir " + base + "/tuned");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.out + r.err, HasSubstr("using the shipped preset configs/ppo/CartPole-v1.yaml"));
  EXPECT_THAT(preset_of(base + "/tuned"), HasSubstr("n_epochs: 20"));
  r = rlzoo("train ppo CartPole-v1 -q --no-preset --set n_timesteps=256 --run-dir " + base + "/defaults");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.out + r.err, Not(HasSubstr("shipped preset")));
  EXPECT_THAT(preset_of(base + "/defaults"), Not(HasSubstr("n_epochs: 20")));
  r = test::run_command("cd '" + base + "' && '" + test::cli_path() +
                        "' train --preset ppo/CartPole-v1 -q --set n_timesteps=256 --run-dir by-name");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(preset_of(base + "/by-name"), HasSubstr("n_epochs: 20"));
  r = test::run_command("cd '" + base + "' && '" + test::cli_path() +
                        "' train --preset configs/ppo/CartPole-v1.yaml -q --set n_timesteps=256 --run-dir by-path");
  ASSERT_EQ(r.status, 0) << r.err;  // the docs' path, outside the checkout
  r = test::run_command("cd '" + base + "' && '" + test::cli_path() + "' train --preset ppo/CartPole-v9 -q");
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, HasSubstr("--preset ppo/CartPole-v9: no such file, and no shipped preset of that name"));
  r = rlzoo("train ppo CartPole-v1 --preset ppo/CartPole-v1 -q");
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, HasSubstr("not both"));
}

// `--set` takes one KEY=VALUE each time: the positional arguments after it stay positional.
TEST(TrainCli, SetTakesOneValueEachTime) {
  const std::string run = test::make_temp_dir("rlzoo-set-once") + "/run";
  auto r = rlzoo("train --set n_timesteps=256 --set hyperparams.n_epochs=2 ppo CartPole-v1 -q --run-dir " + run);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(preset_of(run), HasSubstr("n_epochs: 2\n"));
  // A key in the wrong section is pointed to where it belongs.
  r = rlzoo("train ppo CartPole-v1 --set learning_rate=0.1 -q");
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, HasSubstr("did you mean 'hyperparams.learning_rate'?"));
  r = rlzoo("train ppo CartPole-v1 --set hyperparams.seed=1 -q");
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, HasSubstr("did you mean 'seed', a key of the preset's top level?"));
  r = rlzoo("train ppo CartPole-v1 --set learning_rate -q");
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, HasSubstr("e.g. --set hyperparams.learning_rate=0.001"));
}

// A finished run trained on to a larger budget ends where one run of that budget ends, to the
// bit (inline backend; schedules that do not stretch with the budget).
TEST(TrainCli, AFinishedRunExtendedEqualsOneLongerRun) {
  const std::string base = test::make_temp_dir("rlzoo-extend");
  const std::string flags = " -q --seed 3 --set hyperparams.lr_schedule=constant "
                            "--set hyperparams.clip_range_schedule=constant --run-dir ";
  auto r = rlzoo("train ppo CartPole-v1 --set n_timesteps=1024" + flags + base + "/short");
  ASSERT_EQ(r.status, 0) << r.err;
  r = rlzoo("train --resume " + base + "/short --set n_timesteps=2048");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.out + r.err, HasSubstr("at 1024 of 2048 steps"));
  EXPECT_THAT(preset_of(base + "/short"), HasSubstr("n_timesteps: 2048"));
  r = rlzoo("train ppo CartPole-v1 --set n_timesteps=2048" + flags + base + "/long");
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string extended = slurp(fs::path(base) / "short" / "final" / "policy.pt");
  ASSERT_FALSE(extended.empty());
  EXPECT_TRUE(extended == slurp(fs::path(base) / "long" / "final" / "policy.pt"))
      << "the extended run's final policy differs from the longer run's";
  // The extended run is finished at its new budget: resuming it again has nothing to do.
  r = rlzoo("train --resume " + base + "/short -q");
  EXPECT_EQ(r.status, 0) << r.err;
}

TEST(TrainCli, BadInputIsOneClearLine) {
  auto r = rlzoo("train dqn Pendulum-v1 -q --run-dir /tmp/never-created-rlzoo-run");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_THAT(r.err, HasSubstr("dqn learns on Discrete actions"));
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
  r = rlzoo("train a2c CartPole-v1 -q");
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, HasSubstr("unknown algorithm 'a2c'"));
  r = rlzoo("train sac CartPole-v1 -q");  // a known algorithm on the wrong kind of env
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, HasSubstr("key 'env': sac learns on Box actions; env CartPole-v1 has Discrete(2) actions"));
}

}  // namespace
}  // namespace rlzoo
