// Capabilities declared at registration, checked against every preset: for every registered
// algorithm each backend it does not declare is refused at the preset's key with what it does
// support, and what the driver (Agent::learn) checks itself.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <fstream>

#include "rl/agent.h"
#include "rl/algorithm_registry.h"
#include "tests/support/builtin_registries.h"
#include "tests/support/test_paths.h"

namespace rlzoo {
namespace {

using ::testing::HasSubstr;


// An env the algorithm takes (the capability check runs before the agent is built, but the
// env id must exist).
std::string env_for(const std::string& algo) {
  if (algo == "dmc") return "DouDizhu-v0";
  if (algo == "secbad" || algo == "varibad" || algo == "belief_oracle" || algo == "belief_ppo" || algo == "rl2")
    return "SecbadGrid-v0";
  return "CartPole-v1";
}

TEST(AlgorithmCapabilities, EveryAlgorithmDeclaresBackendsAndAProgressUnit) {
  test::register_builtins();
  for (const std::string& id : algorithm_registry().names()) {
    const AlgorithmCapabilities& caps = algorithm_registry().get(id).capabilities;
    EXPECT_FALSE(caps.backends.empty()) << id;
    EXPECT_FALSE(caps.progress_unit.empty()) << id;
    if (caps.learning == LearningKind::offline) {  // a dataset has no actors to spread
      EXPECT_EQ(caps.backend_list(), "inline") << id;
    }
  }
}

TEST(AlgorithmCapabilities, EveryUndeclaredBackendIsRefusedAtItsKeyNamingWhatIsSupported) {
  test::register_builtins();
  int refused = 0;
  for (const std::string& id : algorithm_registry().names()) {
    const AlgorithmCapabilities& caps = algorithm_registry().get(id).capabilities;
    for (Backend b : {Backend::inline_loop, Backend::threads, Backend::processes}) {
      if (caps.supports(b)) continue;
      std::vector<std::string> overrides{"runtime.backend=" + std::string(backend_name(b))};
      if (b != Backend::inline_loop) overrides.push_back("runtime.actors=2");
      const std::string e = test::error_of([&] { make_agent(id, env_for(id), overrides); });
      EXPECT_THAT(e, HasSubstr("key 'runtime.backend'")) << id;
      EXPECT_THAT(e, HasSubstr(fmt::format("{} does not run on the {} backend; it supports: {}", id, backend_name(b),
                                           caps.backend_list())))
          << id;
      ++refused;
    }
  }
  EXPECT_GT(refused, 10);
}

TEST(AlgorithmCapabilities, ActorsOnAnInlineOnlyPresetAreRefusedAtThePresetsLine) {
  test::register_builtins();
  const std::string dir = test::make_temp_dir("rlzoo-caps");
  const std::string path = dir + "/preset.yaml";
  std::ofstream(path) << "algo: secbad\nenv: SecbadGrid-v0\nruntime:\n  actors: 2\n";
  const std::string e = test::error_of([&] { Agent::from_preset(path); });
  EXPECT_THAT(e, HasSubstr(path + ":4:")) << e;
  EXPECT_THAT(e, HasSubstr("key 'runtime.actors': secbad does not run on the threads backend; it supports: inline"));
  // The same from the command line names the flag.
  const std::string flag = test::error_of([] { make_agent("varibad", "SecbadGrid-v0", {"runtime.actors=2"}); });
  EXPECT_THAT(flag, HasSubstr("--set runtime.actors=2"));
}

TEST(AlgorithmCapabilities, ARuntimeSectionThatContradictsItselfIsRefused) {
  test::register_builtins();
  EXPECT_THAT(test::error_of([] { make_agent("ppo", "CartPole-v1", {"runtime.backend=inline", "runtime.actors=2"}); }),
              HasSubstr("runtime.backend inline runs no actor threads"));
  EXPECT_THAT(test::error_of([] { make_agent("ppo", "CartPole-v1", {"runtime.backend=threads"}); }),
              HasSubstr("runtime.backend threads needs runtime.actors >= 1"));
  EXPECT_THAT(test::error_of([] { make_agent("ppo", "CartPole-v1", {"runtime.backend=fibres"}); }),
              HasSubstr("one of: auto, inline, threads, processes"));
}

TEST(AlgorithmCapabilities, ActorNiceIsRefusedWhereNoActorThreadsRun) {
  test::register_builtins();
  EXPECT_THAT(test::error_of([] { make_agent("ppo", "CartPole-v1", {"runtime.actor_nice=5"}); }),
              HasSubstr("runtime.actor_nice applies to actor threads; the inline backend runs none"));
  EXPECT_THAT(test::error_of([] {
                make_agent("ppo", "CartPole-v1", {"runtime.backend=processes", "runtime.actors=2", "runtime.actor_nice=5"});
              }),
              HasSubstr("the processes backend runs none"));
  EXPECT_THAT(test::error_of([] { make_agent("ppo", "CartPole-v1", {"runtime.actors=2", "runtime.actor_nice=20"}); }),
              HasSubstr("in [0, 19]"));
  EXPECT_NO_THROW(make_agent("ppo", "CartPole-v1", {"runtime.actors=2", "runtime.actor_nice=5"}));
}

TEST(AlgorithmCapabilities, TheDriverRefusesProcessesWithoutAFleetAndCountsInTheAlgorithmsUnit) {
  test::register_builtins();
  auto ppo = make_agent("ppo", "CartPole-v1", {"runtime.backend=processes", "runtime.actors=2"});
  EXPECT_THAT(test::error_of([&] { ppo->learn(64); }), HasSubstr("`rlzoo learner`"));
  EXPECT_EQ(ppo->num_timesteps(), 0);
  EXPECT_THAT(test::error_of([&] { ppo->learn(0); }), HasSubstr("learn: env steps must be >= 1, got 0"));
  auto dmc = make_agent("dmc", "DouDizhu-v0");
  EXPECT_THAT(test::error_of([&] { dmc->learn(0); }), HasSubstr("learn: frames must be >= 1, got 0"));
  EXPECT_EQ(dmc->capabilities().backend_list(), "threads");  // dmc's actors play whole games
}

}  // namespace
}  // namespace rlzoo
