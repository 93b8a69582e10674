// Two learner processes averaging gradients over c10d (`rlzoo train --learners 2 --rank R`), for
// every algorithm that declares several learners: on different episodes (seed + rank) they end
// with identical parameters, which needs rank 0's parameters broadcast when learn() starts (the
// driver) and the same collectives in the same order on both ranks.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "distributed/launcher.h"
#include "tests/support/child_process.h"
#include "tests/support/test_paths.h"

namespace rlzoo {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

nlohmann::json manifest(const fs::path& agent) {
  std::ifstream in(agent / "manifest.json");
  return nlohmann::json::parse(in);
}

// The saved networks: every .pt blob but optimiser state (LibTorch keys it by tensor addresses,
// which differ between processes), replay buffers and recurrent env state.
std::map<std::string, std::string> network_crcs(const nlohmann::json& m) {
  std::map<std::string, std::string> out;
  for (const auto& [name, file] : m.at("files").items()) {
    const bool network = name.ends_with(".pt") && name.find("optimizer") == std::string::npos &&
                         name.find("replay_buffer") == std::string::npos &&
                         name.find("recurrent_state") == std::string::npos;
    if (network) out[name] = file.at("crc32c").dump();
  }
  return out;
}

// Runs the CLI to its end; returns its output, failing the test on a non-zero exit.
std::string run_cli(const std::vector<std::string>& args, const fs::path& log) {
  EXPECT_EQ(test::run_cli_to_end(args, log.string(), 120s), 0) << test::read_file_or_empty(log);
  return test::read_file_or_empty(log);
}

struct GroupCase {
  std::string algo;
  std::string preset;
  std::vector<std::string> overrides;  // short runs that still take several gradient steps
  bool needs_dataset = false;          // offline: a random-policy CartPole dataset is collected first
};

void PrintTo(const GroupCase& c, std::ostream* os) { *os << c.algo; }

const std::vector<GroupCase>& group_cases() {
  static const std::vector<GroupCase> cases = {
      {"ppo", "configs/ppo/CartPole-v1.yaml", {"n_timesteps=2048"}},
      {"dqn",
       "configs/dqn/CartPole-v1.yaml",
       {"n_timesteps=600", "hyperparams.learning_starts=200", "hyperparams.train_freq=100",
        "hyperparams.gradient_steps=10", "hyperparams.target_update_interval=50"}},
      {"dmc",
       "configs/dmc/DouDizhu-v0.yaml",
       {"n_timesteps=240", "runtime.actors=1", "runtime.envs_per_actor=4", "runtime.inference.max_batch=0",
        "hyperparams.batch_size=4", "hyperparams.unroll_length=10"}},
      {"dt", "configs/dt/CartPole-v1.yaml", {"n_timesteps=40", "hyperparams.warmup_steps=10"}, true},
      {"bc", "configs/bc/CartPole-v1.yaml", {"n_timesteps=40", "hyperparams.warmup_steps=10"}, true},
  };
  return cases;
}

class LearnerGroup : public ::testing::TestWithParam<GroupCase> {};

TEST_P(LearnerGroup, TwoRanksOnDifferentEpisodesEndWithIdenticalParameters) {
  const GroupCase& c = GetParam();
  const fs::path dir = test::make_temp_dir("rlzoo-group-" + c.algo);
  std::vector<std::string> common{"train", "-q", "--preset", c.preset, "--set", "eval.every=0", "--set",
                                  "checkpoint.every=0"};
  for (const auto& o : c.overrides) common.insert(common.end(), {"--set", o});
  if (c.needs_dataset) {
    const fs::path data = dir / "data";
    run_cli({"dataset", "collect", "--env", "CartPole-v1", "-n", "30", "--seed", "3", "-o", data.string()},
            dir / "dataset.log");
    common.insert(common.end(), {"--set", "hyperparams.dataset=" + data.string()});
  }
  const std::string rendezvous = "127.0.0.1:" + std::to_string(free_loopback_port());
  std::vector<test::ChildProcess> ranks;
  for (int r = 0; r < 2; ++r) {
    std::vector<std::string> argv{test::cli_path()};
    argv.insert(argv.end(), common.begin(), common.end());
    argv.insert(argv.end(), {"--learners", "2", "--rank", std::to_string(r), "--rendezvous", rendezvous, "--run-dir",
                             (dir / fmt::format("rank{}", r)).string()});
    ranks.emplace_back(argv, test::source_dir(), (dir / fmt::format("rank{}.log", r)).string());
  }
  for (int r = 0; r < 2; ++r) {
    const int status = ranks[static_cast<std::size_t>(r)].wait(300s);
    ASSERT_TRUE(status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0)
        << test::read_file_or_empty(dir / "rank0.log") << test::read_file_or_empty(dir / "rank1.log");
  }
  // Different data: the ranks' seeds differ ...
  EXPECT_NE(test::read_file_or_empty(dir / "rank0" / "preset.yaml").find("seed: 0"), std::string::npos);
  EXPECT_NE(test::read_file_or_empty(dir / "rank1" / "preset.yaml").find("seed: 1"), std::string::npos);
  // ... and so do their initial weights (each rank builds its networks from its own seed), yet
  // after the broadcast and the averaged steps the networks are the same bytes.
  const auto n0 = network_crcs(manifest(dir / "rank0" / "final"));
  const auto n1 = network_crcs(manifest(dir / "rank1" / "final"));
  ASSERT_FALSE(n0.empty());
  EXPECT_EQ(n0, n1) << c.algo;
  const auto m0 = manifest(dir / "rank0" / "final"), m1 = manifest(dir / "rank1" / "final");
  if (m0["files"].contains("torch_rng")) {
    EXPECT_NE(m0["files"]["torch_rng"]["crc32c"], m1["files"]["torch_rng"]["crc32c"]) << "the ranks sampled alike";
  }
}

INSTANTIATE_TEST_SUITE_P(EveryAlgorithmWithSeveralLearners, LearnerGroup, ::testing::ValuesIn(group_cases()),
                         [](const auto& info) { return info.param.algo; });

// The cases above are exactly the algorithms that declare several learners (`rlzoo list algos`
// prints each one's capabilities under its description): a new one must join them.
TEST(LearnerGroupCoverage, EveryAlgorithmDeclaringSeveralLearnersHasATwoRankTest) {
  const fs::path dir = test::make_temp_dir("rlzoo-group-list");
  std::istringstream out(run_cli({"list", "algos"}, dir / "list.log"));
  std::set<std::string> declared, tested;
  std::string line, id;
  while (std::getline(out, line)) {
    if (line.starts_with("  ") && line.size() > 2 && line[2] != ' ') id = line.substr(2, line.find(' ', 2) - 2);
    else if (line.find("several learners") != std::string::npos) declared.insert(id);
  }
  for (const auto& c : group_cases()) tested.insert(c.algo);
  EXPECT_FALSE(declared.empty());
  EXPECT_EQ(declared, tested);
}

// An algorithm that does not declare several learners is refused before the rendezvous (so the
// command ends at once instead of waiting for a second rank) and before anything is written.
TEST(LearnerGroupCoverage, AnAlgorithmWithoutSeveralLearnersIsRefused) {
  const fs::path dir = test::make_temp_dir("rlzoo-group-refused");
  test::ChildProcess p({test::cli_path(), "train", "-q", "--preset", "configs/storm_pg/CartPole-v1.yaml", "--learners",
                        "2", "--rank", "0", "--rendezvous", "127.0.0.1:" + std::to_string(free_loopback_port()),
                        "--run-dir", (dir / "run").string()},
                       test::source_dir(), (dir / "log").string());
  const int status = p.wait(60s);
  ASSERT_TRUE(status != -1 && WIFEXITED(status));
  EXPECT_NE(WEXITSTATUS(status), 0);
  EXPECT_THAT(test::read_file_or_empty(dir / "log"),
              ::testing::HasSubstr("--learners 2: algorithm 'storm_pg' trains as one learner only (several learners: "));
  EXPECT_FALSE(fs::exists(dir / "run"));
}

}  // namespace
}  // namespace rlzoo
