// Wrappers named in env_kwargs: previous_action_reward appends RL²'s inputs (one-hot previous
// action, previous reward) to an unchanged observation and survives save/load; unknown names
// and bad arguments are errors naming the wrapper.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/common/error.h"
#include "core/registry/env_registry.h"
#include "envs/builtin.h"

namespace rlzoo {
namespace {

using ::testing::HasSubstr;

YAML::Node kwargs(const std::string& text) { return YAML::Load(text); }

TEST(WrapperList, PreviousActionRewardAppendsOneHotActionAndReward) {
  register_builtin_envs();
  auto plain = make_env("CartPole-v1");
  auto env = make_env("CartPole-v1", kwargs("{wrappers: [previous_action_reward]}"));
  ASSERT_EQ(env->observation_space().numel(), 4 + 2 + 1);
  EXPECT_EQ(env->spec().max_episode_steps, 0);  // the inner env keeps its own limit of 500
  std::vector<float> p(4), o(7);
  plain->reset(7, std::as_writable_bytes(std::span(p)));
  env->reset(7, std::as_writable_bytes(std::span(o)));
  EXPECT_EQ(std::vector<float>(o.begin(), o.begin() + 4), p);
  EXPECT_EQ(std::vector<float>(o.begin() + 4, o.end()), (std::vector<float>{0, 0, 0}));
  for (std::int64_t a : {1, 0, 1}) {
    const auto rp = plain->step(a, std::as_writable_bytes(std::span(p)));
    const auto ro = env->step(a, std::as_writable_bytes(std::span(o)));
    EXPECT_EQ(ro.reward, rp.reward);
    EXPECT_EQ(std::vector<float>(o.begin(), o.begin() + 4), p);
    EXPECT_EQ(o[4], a == 0 ? 1.0f : 0.0f);
    EXPECT_EQ(o[5], a == 1 ? 1.0f : 0.0f);
    EXPECT_EQ(o[6], 1.0f);  // CartPole's reward
  }
  // The previous action and reward come back with the state.
  const auto state = env->save_state();
  auto again = make_env("CartPole-v1", kwargs("{wrappers: [previous_action_reward]}"));
  std::vector<float> q(7);
  again->load_state(state, std::as_writable_bytes(std::span(q)));
  EXPECT_EQ(q, o);
}

// make_env reads `wrappers:` without taking it out of the caller's node (a saved preset's
// env_kwargs lost its wrappers this way, and agents reloaded without them failed to load).
TEST(WrapperList, MakeEnvLeavesTheKwargsUntouched) {
  register_builtin_envs();
  const YAML::Node preset = YAML::Load("{env_kwargs: {wrappers: [previous_action_reward]}}");
  const YAML::Node kwargs = preset["env_kwargs"];
  const std::string before = YAML::Dump(preset);
  auto env = make_env("CartPole-v1", kwargs);
  EXPECT_EQ(env->observation_space().numel(), 7);
  EXPECT_EQ(YAML::Dump(preset), before);
  EXPECT_EQ(make_env("CartPole-v1", preset["env_kwargs"])->observation_space().numel(), 7);
}

TEST(WrapperList, ContinuousActionsAreCopied) {
  register_builtin_envs();
  auto env = make_env("Pendulum-v1", kwargs("{wrappers: [previous_action_reward]}"));
  ASSERT_EQ(env->observation_space().numel(), 3 + 1 + 1);
  std::vector<float> o(5);
  env->reset(1, std::as_writable_bytes(std::span(o)));
  const float a = 0.5f;
  const auto r = env->step(std::span<const float>(&a, 1), std::as_writable_bytes(std::span(o)));
  EXPECT_EQ(o[3], 0.5f);
  EXPECT_FLOAT_EQ(o[4], static_cast<float>(r.reward));
}

TEST(WrapperList, BadListsAreErrorsNamingTheWrapper) {
  register_builtin_envs();
  try {
    make_env("CartPole-v1", kwargs("{wrappers: [frame_skip]}"));
    FAIL() << "expected a UserError";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("unknown wrapper 'frame_skip'"));
    EXPECT_THAT(e.what(), HasSubstr("previous_action_reward"));
  }
  EXPECT_THROW(make_env("CartPole-v1", kwargs("{wrappers: [{select_observation: {}}]}")), UserError);
  EXPECT_THROW(make_env("CartPole-v1", kwargs("{wrappers: previous_action_reward}")), UserError);
  // select_observation by name works on any Box env.
  auto env = make_env("CartPole-v1", kwargs("{wrappers: [{select_observation: {indices: [0, 2]}}]}"));
  EXPECT_EQ(env->observation_space().numel(), 2);
}

}  // namespace
}  // namespace rlzoo
