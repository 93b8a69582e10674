// `rlzoo export RUN_DIR --format torchscript OUT.pt` end to end, and its user errors.
// (The exported modules' outputs are compared with act() in tests/algorithms/
// torchscript_export_test.cpp and, from Python, in tests/python/test_export.py.)
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/support/test_paths.h"

namespace rlzoo {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
namespace fs = std::filesystem;

test::CommandResult rlzoo(const std::string& args) {
  std::string command = "'";  // appended piecewise: GCC 12 warns (-Wrestrict) about "'" + a + b
  command += test::cli_path();
  command += "' ";
  command += args;
  return test::run_command(command);
}

int count_lines(const std::string& s) { return static_cast<int>(std::count(s.begin(), s.end(), '\n')); }

// A build without LibTorch has neither `train` nor `export`: CLI11 then asks for a subcommand.
bool without_torch(const test::CommandResult& r) {
  return r.status != 0 && (r.err + r.out).find("A subcommand is required") != std::string::npos;
}

TEST(ExportCli, WritesAModuleChecksItAndPrintsItsMethods) {
  const std::string dir = test::make_temp_dir("rlzoo-export-cli");
  const std::string run = dir + "/run";
  auto r = rlzoo("train ppo CartPole-v1 --no-preset -q --seed 2 --run-dir " + run +
                 " --set n_timesteps=128 --set hyperparams.n_steps=64 --set hyperparams.batch_size=64");
  if (without_torch(r)) GTEST_SKIP() << "rlzoo built without LibTorch";
  ASSERT_EQ(r.status, 0) << r.err;

  r = rlzoo("export " + run + " --format torchscript " + dir + "/out/policy.pt --samples " + dir + "/samples.json");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(fs::is_regular_file(dir + "/out/policy.pt"));  // the missing directory was created
  EXPECT_FALSE(fs::exists(dir + "/out/policy.pt.partial"));
  EXPECT_THAT(r.out, HasSubstr("the ppo policy for CartPole-v1 (128 steps)"));
  EXPECT_THAT(r.out, HasSubstr("forward(obs) -> Tensor"));
  EXPECT_THAT(r.out, HasSubstr("obs: float32 [B, 4] -> actions: int64 [B] in Discrete(2)"));
  EXPECT_THAT(r.out, HasSubstr("forward_masked(obs, mask) -> Tensor"));
  EXPECT_THAT(r.out, HasSubstr("value(obs) -> Tensor"));
  EXPECT_THAT(r.out, HasSubstr("checked: forward, forward_masked equal the agent's act() on 100 sampled observations"));
  std::ifstream samples(dir + "/samples.json");
  const auto j = nlohmann::json::parse(samples);
  EXPECT_EQ(j["actions"].size(), 100u);
  EXPECT_EQ(j["observations"][0].size(), 100u);

  // The final agent of a run, its checkpoints and the default format resolve like `rlzoo eval`.
  r = rlzoo("export " + run + "/final " + dir + "/again.pt --check 0");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.out, Not(HasSubstr("checked:")));
  EXPECT_TRUE(fs::is_regular_file(dir + "/again.pt"));
}

TEST(ExportCli, BadInputIsOneClearLine) {
  auto r = rlzoo("export /nonexistent/run /tmp/never-written-rlzoo-export.pt");
  if (without_torch(r)) GTEST_SKIP() << "rlzoo built without LibTorch";
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_THAT(r.err, HasSubstr("/nonexistent/run: no such agent or run directory"));
  EXPECT_FALSE(fs::exists("/tmp/never-written-rlzoo-export.pt"));

  r = rlzoo("export /nonexistent/run /tmp/never-written-rlzoo-export.pt --format onnx");
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, HasSubstr("--format onnx: unknown export format; formats: torchscript"));

  r = rlzoo("export /nonexistent/run /tmp/never-written-rlzoo-export.pt --check 0 --samples /tmp/s.json");
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, HasSubstr("--samples /tmp/s.json: needs --check > 0"));
}

TEST(ExportCli, AlgorithmsWithoutAnExportAreRefusedByName) {
  const std::string dir = test::make_temp_dir("rlzoo-export-cli-varibad");
  auto r = rlzoo("train varibad CartPole-v1 -q --run-dir " + dir + "/run --set n_timesteps=64");
  if (without_torch(r)) GTEST_SKIP() << "rlzoo built without LibTorch";
  ASSERT_EQ(r.status, 0) << r.err;
  r = rlzoo("export " + dir + "/run " + dir + "/p.pt");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_THAT(r.err, HasSubstr("a varibad agent cannot be exported; algorithms that can: ddpg, dqn, gpomdp, ppo, "
                               "sac, srvrpg, storm_pg, svrpg, td3"));
  EXPECT_FALSE(fs::exists(dir + "/p.pt"));
}

}  // namespace
}  // namespace rlzoo
