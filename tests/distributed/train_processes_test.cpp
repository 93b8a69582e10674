// `rlzoo train` of a preset with runtime.backend: processes starts its own learner and actor
// processes on loopback (rlzoo launch's supervisor) and writes the run where `rlzoo train` would;
// `rlzoo train --resume` of that run starts them again.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "tests/support/child_process.h"
#include "tests/support/test_paths.h"

namespace rlzoo {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using ::testing::HasSubstr;

int run(const std::vector<std::string>& args, const fs::path& log) {
  return test::run_cli_to_end(args, log.string(), 180s);
}

TEST(TrainProcesses, TrainStartsActorProcessesAndResumes) {
  const fs::path dir = test::make_temp_dir("rlzoo-train-processes");
  const fs::path run_dir = dir / "run";
  ASSERT_EQ(run({"train", "-q", "--preset", "configs/ppo/CartPole-v1-fleet.yaml", "--set", "runtime.backend=processes",
                 "--set", "n_timesteps=1024", "--set", "checkpoint.every=512", "--set", "eval.every=0", "--run-dir",
                 run_dir.string()},
                dir / "train.log"),
            0)
      << test::read_file_or_empty(dir / "train.log") << test::read_file_or_empty(run_dir / "launch" / "learner.log");
  EXPECT_TRUE(fs::exists(run_dir / "final" / "manifest.json"));
  EXPECT_TRUE(fs::exists(run_dir / "preset.yaml"));
  // Two actor processes took part: each kept its log, and the learner saw trajectories from them.
  EXPECT_TRUE(fs::exists(run_dir / "launch" / "actor0.log"));
  EXPECT_TRUE(fs::exists(run_dir / "launch" / "actor1.log"));
  EXPECT_THAT(test::read_file_or_empty(run_dir / "launch" / "actor1.log"), HasSubstr("trajectories taken by the learner"));
  EXPECT_THAT(test::read_file_or_empty(run_dir / "preset.yaml"), HasSubstr("backend: processes"));
  // --resume goes through the same supervisor (here the run is complete: the learner resumes at
  // its last checkpoint, has nothing left to train, and the actors are stopped).
  ASSERT_EQ(run({"train", "-q", "--resume", run_dir.string()}, dir / "resume.log"), 0)
      << test::read_file_or_empty(dir / "resume.log") << test::read_file_or_empty(run_dir / "launch" / "learner.log");
  EXPECT_THAT(test::read_file_or_empty(run_dir / "launch" / "learner.log"), HasSubstr("resuming"));

  // A run that asks for processes with no actors is refused before any process starts.
  EXPECT_NE(run({"train", "-q", "--preset", "configs/ppo/CartPole-v1.yaml", "--set", "runtime.backend=processes",
                 "--run-dir", (dir / "none").string()},
                dir / "refused.log"),
            0);
  EXPECT_THAT(test::read_file_or_empty(dir / "refused.log"), HasSubstr("runtime.backend processes needs runtime.actors >= 1"));
  EXPECT_FALSE(fs::exists(dir / "none"));
}

}  // namespace
}  // namespace rlzoo
