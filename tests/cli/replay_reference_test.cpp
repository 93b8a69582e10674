// Gymnasium's recorded classic-control trajectories replayed through `rlzoo env replay`
// (the CLI, end to end). Compared as the data's README recommends: every step below
// platform_stable_steps, obs to 1e-5, rewards to 1e-6, flags exactly, and the episode length
// where the whole case is platform-stable.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tests/support/test_paths.h"

namespace rlzoo {
namespace {

using nlohmann::json;

class ReplayReference : public ::testing::TestWithParam<std::string> {};

TEST_P(ReplayReference, MatchesGymnasium) {
  const auto shared = test::shared_dir();
  if (!shared) GTEST_SKIP() << "../shared is absent: no Gymnasium reference data to compare";
  const std::string env_id = GetParam();
  const std::string path = *shared + "/data/gymnasium/classic_control/" + env_id + ".jsonl";
  std::ifstream in(path);
  ASSERT_TRUE(in) << "reference data present but " << path << " cannot be read";
  std::stringstream text;
  text << in.rdbuf();

  const auto result = test::run_command(test::cli_quoted() + " env replay", text.str());
  ASSERT_EQ(result.status, 0) << result.err;

  std::istringstream expected_lines(text.str()), got_lines(result.out);
  std::string expected_line, got_line;
  int cases = 0, steps = 0;
  double max_obs_diff = 0, max_reward_diff = 0;
  while (std::getline(expected_lines, expected_line)) {
    if (expected_line.empty()) continue;
    ASSERT_TRUE(std::getline(got_lines, got_line)) << "no output for case " << cases;
    const json want = json::parse(expected_line), got = json::parse(got_line);
    const int stable = want.at("platform_stable_steps").get<int>();
    const auto& want_obs = want.at("obs");
    SCOPED_TRACE(env_id + " case " + std::to_string(want.at("case").get<int>()));
    if (stable == static_cast<int>(want_obs.size())) {
      ASSERT_EQ(got.at("obs").size(), want_obs.size()) << "episode length differs";
    } else {
      ASSERT_GE(static_cast<int>(got.at("obs").size()), stable);
    }
    for (int t = 0; t < stable; ++t) {
      const auto& wo = want_obs[static_cast<std::size_t>(t)];
      const auto& go = got["obs"][static_cast<std::size_t>(t)];
      ASSERT_EQ(go.size(), wo.size());
      for (std::size_t i = 0; i < wo.size(); ++i) {
        const double d = std::fabs(go[i].get<double>() - wo[i].get<double>());
        max_obs_diff = std::max(max_obs_diff, d);
        ASSERT_LE(d, 1e-5) << "obs[" << t << "][" << i << "]";
      }
      const double dr = std::fabs(got["rewards"][static_cast<std::size_t>(t)].get<double>() -
                                  want["rewards"][static_cast<std::size_t>(t)].get<double>());
      max_reward_diff = std::max(max_reward_diff, dr);
      ASSERT_LE(dr, 1e-6) << "reward " << t;
      ASSERT_EQ(got["terminated"][static_cast<std::size_t>(t)], want["terminated"][static_cast<std::size_t>(t)]) << t;
      ASSERT_EQ(got["truncated"][static_cast<std::size_t>(t)], want["truncated"][static_cast<std::size_t>(t)]) << t;
      ++steps;
    }
    ++cases;
  }
  EXPECT_EQ(cases, 16) << "the data's README promises 16 cases per env";
  std::cout << "[replay] " << env_id << ": compared " << cases << " cases, " << steps
            << " steps through `rlzoo env replay`; max |obs diff| " << max_obs_diff << ", max |reward diff| "
            << max_reward_diff << std::endl;
  RecordProperty("cases", cases);
  RecordProperty("steps", steps);
}

INSTANTIATE_TEST_SUITE_P(ClassicControl, ReplayReference,
                         ::testing::Values("CartPole-v1", "Acrobot-v1", "MountainCar-v0", "MountainCarContinuous-v0",
                                           "Pendulum-v1"),
                         [](const auto& info) {
                           std::string s = info.param;
                           for (auto& c : s)
                             if (c == '-') c = '_';
                           return s;
                         });

}  // namespace
}  // namespace rlzoo
