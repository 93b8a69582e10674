// rlzoo::check_env (users' own envs) and env_entry (one-line registration).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "core/common/error.h"
#include "core/registry/check_env.h"
#include "core/registry/env_registry.h"
#include "tests/core/test_envs.h"

namespace rlzoo {
namespace {

using ::testing::HasSubstr;

// WalkEnv whose observation turns NaN once it reaches +2: the kind of bug check_env exists for.
class NanWalkEnv final : public test::WalkEnv {
 protected:
  StepResult do_step(ConstBytes action, Bytes obs) override {
    StepResult r = WalkEnv::do_step(action, obs);
    if (position() >= 2) as_span<float>(obs)[0] = std::nanf("");
    return r;
  }
};

struct WalkConfig {
  int goal = 3;
  static void describe(Fields<WalkConfig>& f) { f("goal", &WalkConfig::goal, "distance that ends an episode", Bound::at_least(1)); }
};
class ConfiguredWalkEnv final : public test::WalkEnv {
 public:
  explicit ConfiguredWalkEnv(WalkConfig c) : WalkEnv(c.goal) { mutable_spec().id = "ConfiguredWalk-v0"; }
};

void register_once() {
  static bool done = [] {
    register_env("Walk-v0", env_entry<test::WalkEnv>(50, 3.0, "walk to +-3"));
    return true;
  }();
  (void)done;
}

TEST(CheckEnv, ARegisteredGoodEnvPasses) {
  register_once();
  const ConformanceReport r = check_env("Walk-v0");
  EXPECT_TRUE(r.ok()) << r.summary();
  EXPECT_GT(r.episodes, 0);
  EXPECT_EQ(r.env_id, "Walk-v0");
}

TEST(CheckEnv, ABrokenEnvFailsAndTheReportSaysWhy) {
  register_once();
  const ConformanceReport r = check_env([] { return std::make_unique<NanWalkEnv>(); });
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.summary(), HasSubstr("finite"));
}

TEST(CheckEnv, UnknownIdsAndBadKwargsAreTheCallersErrors) {
  register_once();
  EXPECT_THROW(check_env("Walk-v9"), UserError);
  try {
    check_env("Walk-v0", YAML::Load("{goal: 2}"));  // Walk-v0 takes no keyword arguments
    FAIL() << "kwargs accepted by an env that has none";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("goal"));
  }
}

TEST(EnvEntry, BuildsFromValidatedKwargsAndAppliesTheRegistration) {
  static bool done = [] {
    register_env("ConfiguredWalk-v0", env_entry<ConfiguredWalkEnv, WalkConfig>(7, 1.5, "walk with a goal"));
    return true;
  }();
  (void)done;
  const EnvEntry& e = env_registry().get("ConfiguredWalk-v0");
  ASSERT_TRUE(e.describe_kwargs);
  ASSERT_EQ(e.describe_kwargs().size(), 1u);
  EXPECT_EQ(e.describe_kwargs()[0].key, "goal");
  EXPECT_EQ(e.describe_kwargs()[0].default_value, "3");
  auto env = make_env("ConfiguredWalk-v0", YAML::Load("{goal: 1}"));
  EXPECT_EQ(env->max_episode_steps(), 7);
  EXPECT_EQ(env->spec().reward_threshold, 1.5);
  // goal 1: the first step away from 0 ends the episode.
  float obs = 0;
  env->reset(3, writable_bytes_of(std::span(&obs, 1)));
  const auto& walk = dynamic_cast<const test::WalkEnv&>(*env);
  const std::int64_t away = walk.position() >= 0 ? 2 : 0;
  const StepResult r = env->step(away, writable_bytes_of(std::span(&obs, 1)));
  EXPECT_TRUE(r.terminated);
  EXPECT_THROW(make_env("ConfiguredWalk-v0", YAML::Load("{goal: 0}")), UserError);
  EXPECT_TRUE(check_env("ConfiguredWalk-v0", YAML::Load("{goal: 2}")).ok());
}

TEST(EnvEntry, AnEnvWhoseSpecNamesAnotherIdIsAUserError) {
  static bool done = [] {
    register_env("Misnamed-v0", env_entry<test::WalkEnv>(10, std::nullopt, "reports Walk-v0"));
    return true;
  }();
  (void)done;
  try {
    make_env("Misnamed-v0");
    FAIL() << "accepted";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("registered as 'Misnamed-v0' reports the id 'Walk-v0'"));
  }
}

}  // namespace
}  // namespace rlzoo
