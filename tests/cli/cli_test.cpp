// The rlzoo executable: commands work, user errors are one clear line with a non-zero exit.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <cmath>
#include <set>
#include <sstream>

#include "tests/support/test_paths.h"

namespace rlzoo {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

test::CommandResult rlzoo(const std::string& args, const std::string& input = "") {
  return test::run_command(test::cli_quoted() + " " + args, input);
}

int count_lines(const std::string& s) { return static_cast<int>(std::count(s.begin(), s.end(), '\n')); }

TEST(Cli, VersionAndList) {
  auto r = rlzoo("--version");
  EXPECT_EQ(r.status, 0);
  EXPECT_THAT(r.out, HasSubstr("rlzoo 0."));
  r = rlzoo("list");
  EXPECT_EQ(r.status, 0);
  for (const char* id : {"CartPole-v1", "Acrobot-v1", "MountainCar-v0", "MountainCarContinuous-v0", "Pendulum-v1"})
    EXPECT_THAT(r.out, HasSubstr(id));
}

TEST(Cli, EnvInfoShowsSpacesAndLimits) {
  const auto r = rlzoo("env info CartPole-v1");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("action space:      Discrete(2)"));
  EXPECT_THAT(r.out, HasSubstr("max_episode_steps: 500"));
  EXPECT_THAT(r.out, HasSubstr("reward_threshold:  475"));
}

TEST(Cli, UnknownEnvIsOneLineWithSuggestion) {
  const auto r = rlzoo("env info CartPole-v2");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_THAT(r.err, HasSubstr("rlzoo: error: unknown env 'CartPole-v2'; did you mean: CartPole-v1?"));
  EXPECT_THAT(r.err, Not(HasSubstr("terminate")));
}

TEST(Cli, EnvCheckReportsEachEnvAndFailsOnBadInput) {
  auto r = rlzoo("env check CartPole-v1 MountainCar-v0 --episodes 1");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("ok    : conformance of CartPole-v1"));
  EXPECT_THAT(r.out, HasSubstr("2 of 2 envs passed"));
  // MountainCar-v0's start depends on the seed; asking for a deterministic env still passes
  // (the divergence check is off), and bad kwargs are the user's error, named.
  EXPECT_EQ(rlzoo("env check Pendulum-v1 --deterministic --episodes 1").status, 0);
  r = rlzoo("env check Pendulum-v1 --kwargs '{g: -1}'");
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, HasSubstr("g"));
  EXPECT_EQ(rlzoo("env check").status, 2);
  EXPECT_EQ(rlzoo("env check CartPole-v1 --all").status, 2);
  EXPECT_NE(rlzoo("env check CartPole-v1 --seeds").status, 0);
  // A failing check: with a budget of 2 steps, CartPole's episodes do not end in time.
  r = rlzoo("env check CartPole-v1 --max-steps 2");
  EXPECT_EQ(r.status, 1);
  EXPECT_THAT(r.out, HasSubstr("FAILED: conformance of CartPole-v1"));
}

// `env check --all` checks every registered env with the registry's own settings (the grid
// worlds declare themselves deterministic) and passes; an env that needs kwargs nobody gave is
// skipped, saying which.
TEST(Cli, EnvCheckAllPassesAndCoversEveryRegisteredEnv) {
  const auto list = rlzoo("list envs");
  ASSERT_EQ(list.status, 0) << list.err;
  std::vector<std::string> ids;
  std::istringstream lines(list.out);
  for (std::string line; std::getline(lines, line);)
    if (line.rfind("  ", 0) == 0) ids.push_back(line.substr(2, line.find(' ', 2) - 2));
  ASSERT_GT(ids.size(), 10u);
  const auto r = rlzoo("env check --all");
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  for (const auto& id : ids)
    EXPECT_TRUE(r.out.find("conformance of " + id + ":") != std::string::npos ||
                r.out.find("skipped " + id + ": it needs kwargs") != std::string::npos)
        << id << " was not checked:\n" << r.out;
  EXPECT_THAT(r.out, HasSubstr("ok    : conformance of GridWorld-FourRooms-v0"));
  if (std::find(ids.begin(), ids.end(), "MJCF-v0") != ids.end())  // a build with MuJoCo
    EXPECT_THAT(r.out, HasSubstr("skipped MJCF-v0: it needs kwargs: model_path"));
}

// Every mistake on the command line, the parser's included, is one `rlzoo: error:` line and
// exit status 2 (docs/cli.md), naming what was wrong.
TEST(Cli, EveryMalformedCommandLineIsOneErrorLineAndExitTwo) {
  const struct {
    const char* args;
    const char* says;
  } cases[] = {
      {"frobnicate", "'rlzoo' has no command 'frobnicate'"},
      {"trian ppo CartPole-v1", "has no command 'trian' (did you mean 'train'?)"},
      {"", "'rlzoo' needs a command: "},
      {"env", "'rlzoo env' needs a command: info, check, replay"},
      {"env chek CartPole-v1", "'rlzoo env' has no command 'chek' (did you mean 'check'?)"},
      {"env info", "'rlzoo env info': id is required"},
      {"bench", "'rlzoo bench' needs a command"},
      {"bench env --repeats 0", "--repeats: must be greater than 0, got 0"},
      {"bench env --repeats -3", "--repeats: must be greater than 0, got -3"},
      {"bench env --repeats two", "--repeats"},
      {"env check CartPole-v1 --episodes 0", "--episodes: must be greater than 0, got 0"},
      {"env check CartPole-v1 --episodes 1.5", "--episodes"},
      {"env check CartPole-v1 --seeds", "--seeds"},
      {"env check CartPole-v1 --epsiodes 2", "has no option '--epsiodes' (did you mean '--episodes'?)"},
      {"train ppo CartPole-v1 --bogus", "'rlzoo train' has no option '--bogus'"},
      {"train ppo CartPole-v1 --seed abc", "--seed"},
      {"train ppo CartPole-v1 --set", "--set"},
      {"train ppo CartPole-v1 extra", "'rlzoo train' takes no argument 'extra' here"},
      {"list --foo", "'rlzoo list' has no option '--foo'"},
      {"list everything", "everything"},
      {"eval", "'rlzoo eval': dir is required"},
      {"dataset collect --episodes 0 -o x", "--episodes: must be greater than 0, got 0"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.args);
    const auto r = rlzoo(c.args);
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_EQ(count_lines(r.err), 1) << r.err;
    EXPECT_THAT(r.err, ::testing::StartsWith("rlzoo: error: ")) << r.err;
    EXPECT_THAT(r.err, HasSubstr(c.says)) << r.err;
    EXPECT_THAT(r.err, Not(HasSubstr("e+308"))) << r.err;
  }
  // Help and the version are not errors.
  EXPECT_EQ(rlzoo("--help").status, 0);
  EXPECT_EQ(rlzoo("train --help").status, 0);
  EXPECT_EQ(rlzoo("--version").status, 0);
}

TEST(Cli, ReplayErrorsNameTheInputLine) {
  auto r = rlzoo("env replay", "{\"env\": \"CartPole-v1\", \"initial_state\": [0,0,0,0], \"actions\": [0]}\nnot json\n");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(count_lines(r.out), 1);  // the first case was answered before the error
  EXPECT_THAT(r.err, HasSubstr("stdin line 2: invalid JSON"));
  r = rlzoo("env replay", "{\"env\": \"CartPole-v1\", \"initial_state\": [0,0,0], \"actions\": [0]}\n");
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, HasSubstr("stdin line 1:"));
  EXPECT_THAT(r.err, HasSubstr("CartPole-v1"));
  r = rlzoo("env replay", "{\"env\": \"CartPole-v1\", \"initial_state\": [0,0,0,0], \"actions\": [7]}\n");
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, HasSubstr("invalid action 7"));
}

TEST(Cli, ReplayStopsAtTheFirstDoneStepAndReportsState) {
  // A pole already past the 12-degree threshold terminates on the first step (Euler moves
  // theta by tau * the old theta_dot = 0).
  const auto r = rlzoo("env replay", "{\"env\": \"CartPole-v1\", \"initial_state\": [0,0,0.25,0], \"actions\": [1,1,1]}\n");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["obs"].size(), 1u);
  EXPECT_EQ(j["terminated"][0], true);
  EXPECT_EQ(j["state"][0].size(), 4u);
}

TEST(Cli, BenchEnvPrintsJsonLinesWithBaselines) {
  const auto r = rlzoo("bench env --seconds 0.01 --repeats 1");
  ASSERT_EQ(r.status, 0) << r.err;
  std::istringstream lines(r.out);
  std::string line;
  int measured = 0, references = 0;
  while (std::getline(lines, line)) {
    const auto j = nlohmann::json::parse(line);
    ASSERT_TRUE(j.contains("bench") && j.contains("value") && j.contains("unit") && j.contains("baseline")) << line;
    EXPECT_GT(j["value"].get<double>(), 0.0) << line;
    if (j.value("reference", false))
      ++references;
    else
      ++measured;
  }
  EXPECT_EQ(measured, 8);  // raw loop, single env, its NaN/Inf check, sync x3, threaded x2
  EXPECT_EQ(references, 3);
}

#if RLZOO_WITH_MUJOCO
TEST(Cli, BenchMujocoPrintsTheOverheadBesideItsNoiseFloor) {
  // 60 steps of Reacher (episodes of 50): one reset inside the replay, six 10-step chunks.
  const auto r = rlzoo("bench mujoco --tasks Reacher-v4 --steps 60 --repeats 1 --vector-envs 2 --vector-steps 2");
  ASSERT_EQ(r.status, 0) << r.err;
  std::istringstream lines(r.out);
  std::set<std::string> names;
  for (std::string line; std::getline(lines, line);) {
    const auto j = nlohmann::json::parse(line);
    names.insert(j["bench"].get<std::string>());
    if (j["bench"] != "mujoco/Reacher-v4/rlzoo_env") continue;
    EXPECT_EQ(j["baseline_name"], "raw_mj_step_loop");
    EXPECT_EQ(j["resets"], 1);
    EXPECT_EQ(j["chunk_steps"], 10);
    // Both are one minus a ratio of two times of the same physics: fractions, not percentages.
    // With one repeat the overhead is exactly one minus the env's rate over the raw loop's,
    // whatever the timing (a busy machine once made the env 2.7x the raw loop in this short
    // run); the noise floor's control loop is not printed, so only its form is checked.
    ASSERT_TRUE(j.contains("overhead") && j.contains("noise_floor")) << line;
    const double rate_ratio = j["value"].get<double>() / j["baseline"].get<double>();
    EXPECT_NEAR(j["overhead"].get<double>(), 1.0 - rate_ratio, 1e-9 * std::max(1.0, rate_ratio)) << line;
    const double noise_floor = j["noise_floor"].get<double>();
    EXPECT_TRUE(std::isfinite(noise_floor) && noise_floor < 1.0) << line;
  }
  for (const char* name : {"mujoco/Reacher-v4/raw_mj_step_loop", "mujoco/Reacher-v4/rlzoo_env",
                           "mujoco/Reacher-v4/threaded_vector_t1", "mujoco/Reacher-v4/threaded_vector_t2"})
    EXPECT_EQ(names.count(name), 1u) << name;
}
#endif

}  // namespace
}  // namespace rlzoo
