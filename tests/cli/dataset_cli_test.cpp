// `rlzoo dataset collect/info/merge/slice/import` end to end, their user errors, and a training
// run recorded with the record_episodes wrapper.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tests/support/test_paths.h"

namespace rlzoo {
namespace {

using ::testing::HasSubstr;
namespace fs = std::filesystem;
using json = nlohmann::json;

test::CommandResult rlzoo(const std::string& args) {
  std::string command = "'";  // built up piecewise: "'" + std::string trips GCC 12's -Wrestrict
  command += test::cli_path();
  command += "' ";
  command += args;
  return test::run_command(command);
}

int count_lines(const std::string& s) { return static_cast<int>(std::count(s.begin(), s.end(), '\n')); }

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// dataset.json as written (cheaper than another `rlzoo dataset info --json`: each run loads LibTorch).
json manifest(const fs::path& dir) { return json::parse(slurp(dir / "dataset.json")); }

json info_json(const fs::path& dir) {
  const auto r = rlzoo("dataset info --json " + dir.string());
  EXPECT_EQ(r.status, 0) << r.err;
  return json::parse(r.out);
}

TEST(DatasetCli, CollectRandomInfoAndMerge) {
  const fs::path tmp = test::make_temp_dir("rlzoo-dataset-cli");
  auto r = rlzoo("dataset collect --env CartPole-v1 --episodes 5 --seed 3 --out " + (tmp / "a").string());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(count_lines(r.out), 1) << r.out;
  EXPECT_THAT(r.out, HasSubstr("collected 5 episodes ("));
  EXPECT_THAT(r.out, HasSubstr("on CartPole-v1 into " + (tmp / "a").string() + ": return "));

  const json a = info_json(tmp / "a");
  EXPECT_EQ(a["env"], "CartPole-v1");
  EXPECT_EQ(a["episodes"], 5);
  EXPECT_EQ(a["observation_space"]["type"], "Box");
  EXPECT_EQ(a["action_space"], json::parse(R"({"type": "Discrete", "n": 2, "start": 0})"));
  EXPECT_EQ(a["source"]["policy"], "random");
  EXPECT_EQ(a["source"]["seed"], 3);
  // CartPole gives +1 per step: every return is the episode's length.
  const double mean_length = a["length"]["mean"];
  EXPECT_EQ(a["return"]["mean"].get<double>(), mean_length);
  EXPECT_EQ(a["steps"].get<double>(), 5 * mean_length);
  EXPECT_GE(a["length"]["min"].get<double>(), 8);

  // One seed, one dataset.
  r = rlzoo("dataset collect --env CartPole-v1 --episodes 5 --seed 3 --out " + (tmp / "b").string());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(slurp(tmp / "a" / "chunk-000000.rlzd"), slurp(tmp / "b" / "chunk-000000.rlzd"));

  r = rlzoo("dataset info --check " + (tmp / "a").string());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("action space:      Discrete(2)"));
  EXPECT_THAT(r.out, HasSubstr("episodes:          5"));
  EXPECT_THAT(r.out, HasSubstr("  policy: random"));

  r = rlzoo("dataset merge --out " + (tmp / "m").string() + " " + (tmp / "a").string() + " " + (tmp / "b").string());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("merged 2 datasets (10 episodes"));
  const json m = manifest(tmp / "m");
  EXPECT_EQ(m["episodes"], 10);
  EXPECT_EQ(m["steps"], 2 * a["steps"].get<int>());
  EXPECT_EQ(m["env"], "CartPole-v1");
  EXPECT_EQ(m["chunks"].size(), 2u);
}

TEST(DatasetCli, BadInputIsOneClearLine) {
  const fs::path tmp = test::make_temp_dir("rlzoo-dataset-cli");
  const std::string out = (tmp / "a").string();
  ASSERT_EQ(rlzoo("dataset collect --env CartPole-v1 -n 1 --out " + out).status, 0);
  auto r = rlzoo("dataset collect --env CartPole-v1 -n 1 --out " + out);
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_THAT(r.err, HasSubstr(out + ": the directory is not empty"));
  EXPECT_EQ(rlzoo("dataset collect --env CartPole-v1 -n 2 --overwrite --out " + out).status, 0);
  EXPECT_EQ(manifest(out)["episodes"], 2);
  {  // a flipped byte in the first record's payload: info --check names file and offset
    std::fstream chunk(fs::path(out) / "chunk-000000.rlzd", std::ios::in | std::ios::out | std::ios::binary);
    chunk.seekg(20);
    const char c = static_cast<char>(chunk.get());
    chunk.seekp(20);
    chunk.put(static_cast<char>(c ^ 0x40));
  }
  r = rlzoo("dataset info --check " + out);
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_THAT(r.err, HasSubstr(out + "/chunk-000000.rlzd: byte offset 8: CRC mismatch"));

  r = rlzoo("dataset collect --env CartPole-v1 --agent runs/x -n 1 --out " + (tmp / "b").string());
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, HasSubstr("give either --agent RUN_OR_AGENT_DIR or --env ENV"));
  r = rlzoo("dataset collect --env CartPole-v1 --epsilon 0.5 -n 1 --out " + (tmp / "b").string());
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, HasSubstr("--epsilon and --noise apply to --agent"));

  r = rlzoo("dataset info " + (tmp / "missing").string());
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, HasSubstr((tmp / "missing").string() + ": no such dataset directory"));

  std::ofstream(tmp / "x.hdf5") << "not hdf5";
  r = rlzoo("dataset import " + (tmp / "x.hdf5").string() + " --out " + (tmp / "i").string());
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_THAT(r.err, HasSubstr((tmp / "x.hdf5").string() + ": "));  // not an HDF5 file, or no HDF5 in this build
}

TEST(DatasetCli, CollectFromASavedAgent) {
  // The smallest PPO run there is (one 64-step rollout): only the loading and acting matter here.
  const fs::path tmp = test::make_temp_dir("rlzoo-dataset-cli");
  const std::string run = (tmp / "run").string();
  auto r = rlzoo("train ppo CartPole-v1 --no-preset --set n_timesteps=64 --set hyperparams.n_steps=64 --set hyperparams.batch_size=32 "
                 "--set hyperparams.n_envs=1 --set eval.every=0 --set checkpoint.every=0 --seed 1 -q --run-dir " + run);
  if (r.status != 0 && r.err.find("unknown command") != std::string::npos) GTEST_SKIP() << "built without LibTorch";
  ASSERT_EQ(r.status, 0) << r.err;

  const std::string collect = "dataset collect --agent " + run + " --episodes 20 --epsilon 1.0 --seed 5 --out ";
  r = rlzoo(collect + (tmp / "a").string());
  ASSERT_EQ(r.status, 0) << r.err;
  const json a = manifest(tmp / "a");
  EXPECT_EQ(a["episodes"], 20);
  EXPECT_EQ(a["source"]["policy"], "agent");
  EXPECT_EQ(a["source"]["algorithm"], "ppo");
  EXPECT_EQ(a["source"]["epsilon"], 1.0);
  // epsilon 1: every action uniform, so episodes as long as a random policy's (about 22 steps).
  const double mean_length = a["steps"].get<double>() / 20;
  EXPECT_GT(mean_length, 12);
  EXPECT_LT(mean_length, 40);
  r = rlzoo(collect + (tmp / "b").string());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(slurp(tmp / "a" / "chunk-000000.rlzd"), slurp(tmp / "b" / "chunk-000000.rlzd"));

  r = rlzoo("dataset collect --agent " + run + " -n 1 --noise 0.1 --out " + (tmp / "c").string());
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, HasSubstr("noise is added to float Box actions; CartPole-v1 has action space Discrete(2)"));
  EXPECT_FALSE(fs::exists(tmp / "c"));  // options are checked before anything is written
}

// A training run recorded by the record_episodes wrapper, set from the command line; its
// evaluations record nothing, evaluating it later leaves the recording alone; then its first
// 100 steps are sliced off.
TEST(DatasetCli, RecordATrainingRunAndSliceIt) {
  const fs::path tmp = test::make_temp_dir("rlzoo-dataset-cli");
  const std::string run = (tmp / "run").string(), rec = (tmp / "rec").string();
  auto r = rlzoo("train ppo CartPole-v1 --no-preset --set n_timesteps=256 --set hyperparams.n_steps=64 "
                 "--set hyperparams.batch_size=32 --set hyperparams.n_envs=2 --set eval.every=128 "
                 "--set eval.episodes=2 --set checkpoint.every=0 --seed 1 -q --run-dir " + run +
                 " --set 'env_kwargs.wrappers=[{record_episodes: {dir: " + rec + "}}]'");
  if (r.status != 0 && r.err.find("unknown command") != std::string::npos) GTEST_SKIP() << "built without LibTorch";
  ASSERT_EQ(r.status, 0) << r.err;
  const json m = manifest(rec);
  EXPECT_EQ(m["env"], "CartPole-v1");
  EXPECT_EQ(m["source"]["recorded_by"], "record_episodes");
  // 2 envs x 128 steps; the episodes still running at the end are dropped.
  EXPECT_GE(m["episodes"].get<int>(), 4);
  EXPECT_LE(m["steps"].get<int>(), 256);
  const std::string before = slurp(fs::path(rec) / "dataset.json");

  r = rlzoo("eval " + run + " --episodes 2");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(slurp(fs::path(rec) / "dataset.json"), before);

  const std::string out = (tmp / "first100").string();
  r = rlzoo("dataset slice " + rec + " --first-steps 100 --out " + out);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("sliced episodes 0 .. "));
  int episodes = 0, steps = 0;
  for (const auto& length : m["lengths"]) {
    if (steps + length.get<int>() > 100) break;
    steps += length.get<int>();
    ++episodes;
  }
  const json s = manifest(out);
  EXPECT_EQ(s["episodes"], episodes);
  EXPECT_EQ(s["steps"], steps);
  EXPECT_EQ(s["source"]["slice"]["by"], "first_steps");
  EXPECT_EQ(s["source"]["sliced_from"]["source"]["recorded_by"], "record_episodes");
}

// The offline path end to end: data from `dataset collect`, `train dt` on it, `eval
// --target-return`; and the errors: a target return for an agent that takes none, a dataset
// that is not there.
TEST(DatasetCli, DecisionTransformerTrainsOnADatasetAndTakesATargetReturn) {
  const fs::path tmp = test::make_temp_dir("rlzoo-dt-cli");
  auto r = rlzoo("dataset collect --env CartPole-v1 --episodes 10 --seed 2 --out " + (tmp / "data").string());
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string tiny = " --set hyperparams.width=16 --set hyperparams.layers=1 --set hyperparams.context=4"
                           " --set n_timesteps=20 --set log_every=10 --set eval.every=0 --set checkpoint.every=0 -q";
  r = rlzoo("train dt CartPole-v1 --no-preset --set hyperparams.dataset=" + (tmp / "data").string() + tiny + " --run-dir " +
            (tmp / "dt").string());
  if (r.status != 0 && r.err.find("unknown command") != std::string::npos) GTEST_SKIP() << "built without LibTorch";
  ASSERT_EQ(r.status, 0) << r.err;
  r = rlzoo("eval " + (tmp / "dt").string() + " -n 2 --target-return 42");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("target_return: 42.0000"));
  EXPECT_THAT(r.out, HasSubstr("over 2 episodes"));

  r = rlzoo("train dt CartPole-v1 --no-preset --set hyperparams.dataset=" + (tmp / "nowhere").string() + tiny + " --run-dir " +
            (tmp / "dt2").string());
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, HasSubstr((tmp / "nowhere").string()));
  EXPECT_FALSE(fs::exists(tmp / "dt2")) << "the run directory was made before the dataset was checked";

  r = rlzoo("train ppo CartPole-v1 --no-preset --set n_timesteps=64 --set hyperparams.n_steps=64 --set hyperparams.batch_size=32 "
            "--set hyperparams.n_envs=1 --set eval.every=0 --set checkpoint.every=0 -q --run-dir " + (tmp / "ppo").string());
  ASSERT_EQ(r.status, 0) << r.err;
  r = rlzoo("eval " + (tmp / "ppo").string() + " --target-return 10");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_THAT(r.err, HasSubstr("--target-return"));
  EXPECT_THAT(r.err, HasSubstr("ppo"));
}

}  // namespace
}  // namespace rlzoo
