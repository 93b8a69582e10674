// Two learner processes averaging gradients over c10d (`rlzoo train --learners 2 --rank R`):
// on different episodes (seed + rank) they end with identical parameters.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <nlohmann/json.hpp>

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

TEST(LearnerGroup, TwoLearnersOnDifferentEpisodesKeepIdenticalParameters) {
  const fs::path dir = test::make_temp_dir("rlzoo-group");
  const std::string rendezvous = "127.0.0.1:" + std::to_string(free_loopback_port());
  std::vector<test::ChildProcess> ranks;
  for (int r = 0; r < 2; ++r)
    ranks.emplace_back(
        std::vector<std::string>{test::cli_path(), "train", "-q", "--preset", "configs/ppo/CartPole-v1.yaml", "--set",
                                 "n_timesteps=2048", "--learners", "2", "--rank", std::to_string(r), "--rendezvous",
                                 rendezvous, "--run-dir", (dir / fmt::format("rank{}", r)).string()},
        test::source_dir(), (dir / fmt::format("rank{}.log", r)).string());
  for (int r = 0; r < 2; ++r) {
    const int status = ranks[static_cast<std::size_t>(r)].wait(300s);
    ASSERT_TRUE(status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0)
        << test::read_file_or_empty(dir / "rank0.log") << test::read_file_or_empty(dir / "rank1.log");
  }
  // Different data: the ranks' seeds differ ...
  EXPECT_NE(test::read_file_or_empty(dir / "rank0" / "preset.yaml").find("seed: 0"), std::string::npos);
  EXPECT_NE(test::read_file_or_empty(dir / "rank1" / "preset.yaml").find("seed: 1"), std::string::npos);
  // ... yet after 8 rollouts x 20 epochs of averaged gradient steps the weights are the same
  // bytes. (optimizer.pt is not compared: LibTorch keys optimiser state by tensor addresses,
  // which differ between processes.)
  const auto m0 = manifest(dir / "rank0" / "final"), m1 = manifest(dir / "rank1" / "final");
  EXPECT_EQ(m0["files"]["policy.pt"]["crc32c"], m1["files"]["policy.pt"]["crc32c"]);
  EXPECT_NE(m0["files"]["torch_rng"]["crc32c"], m1["files"]["torch_rng"]["crc32c"]) << "the ranks sampled alike";
}

}  // namespace
}  // namespace rlzoo
