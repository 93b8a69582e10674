// The toy REINFORCE (toy_reinforce.h) passes check_algorithm on the backend it declares, and
// each deliberately broken variant fails it with the check that names its flaw.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "rl/algorithm_conformance.h"
#include "tests/algorithms/toy_reinforce.h"
#include "tests/support/builtin_registries.h"
#include "tests/support/test_paths.h"

namespace rlzoo {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;

AlgorithmCheckReport check_toy(const std::string& id) {
  test::register_builtins();
  toy::register_toy_algorithms();
  AlgorithmCheckOptions o;
  o.env = "CartPole-v1";
  o.overrides = {"hyperparams.batch_steps=32", "log_every=1000000"};
  o.timesteps = 96;
  o.work_dir = test::make_temp_dir("rlzoo-toy-" + id);
  AlgorithmCheckReport report = check_algorithm(id, o);
  std::cout << report.summary();
  return report;
}

// The failures' names (what precedes ": ").
std::vector<std::string> failed_checks(const AlgorithmCheckReport& r) {
  std::vector<std::string> names;
  for (const auto& f : r.failures) names.push_back(f.substr(0, f.find(':')));
  return names;
}

TEST(ToyReinforce, PassesCheckAlgorithm) {
  const auto report = check_toy("toy_reinforce");
  EXPECT_TRUE(report.ok()) << report.summary();
  for (const char* check : {"learn[inline]", "callbacks", "checkpoints", "save_load_act", "deterministic_act",
                            "exact_resume", "refuses[threads]", "refuses[processes]", "refuses[device cuda]"})
    EXPECT_THAT(report.passed, Contains(check));
}

TEST(ToyReinforce, ForgettingTheOptimizerStateFailsExactResume) {
  EXPECT_THAT(failed_checks(check_toy("toy_reinforce_forgets_optimizer")),
              ::testing::ElementsAre("exact_resume"));
}

TEST(ToyReinforce, DeclaringThreadsButActingInlineFailsLearnOnThreads) {
  const auto report = check_toy("toy_reinforce_inline_on_threads");
  EXPECT_THAT(failed_checks(report), ::testing::ElementsAre("learn[threads]"));
  EXPECT_THAT(report.failures.at(0), HasSubstr("no experience came from actors"));
}

TEST(ToyReinforce, ANonDeterministicDeterministicActFailsDeterministicAct) {
  EXPECT_THAT(failed_checks(check_toy("toy_reinforce_random_act")), Contains("deterministic_act"));
}

}  // namespace
}  // namespace rlzoo
