// Wrappers named in env_kwargs: previous_action_reward appends RL²'s inputs (one-hot previous
// action, previous reward) to an unchanged observation and survives save/load; unknown names
// and bad arguments are errors naming the wrapper; wrappers registered by other layers are
// applied like core's own.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/common/error.h"
#include "core/registry/env_registry.h"
#include "core/wrappers/wrapper.h"
#include "core/wrappers/wrapper_list.h"
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

// A wrapper of a higher layer: multiplies rewards by {factor}.
class ScaleReward : public Wrapper {
 public:
  ScaleReward(std::unique_ptr<Env> env, double factor) : Wrapper(std::move(env)), factor_(factor) {}

 protected:
  StepResult do_step(ConstBytes action, Bytes obs) override {
    StepResult r = Wrapper::do_step(action, obs);
    r.reward *= factor_;
    return r;
  }

 private:
  double factor_;
};

void register_scale_reward() {
  if (wrapper_registered("test_scale_reward")) return;  // --gtest_repeat
  register_wrapper("test_scale_reward", [](std::unique_ptr<Env> env, const YAML::Node& args, const ConfigContext& ctx) {
    if (!args || !args["factor"]) ctx.fail(args, "test_scale_reward needs {factor}");
    return std::make_unique<ScaleReward>(std::move(env), args["factor"].as<double>());
  });
}

TEST(WrapperList, RegisteredWrappersAreAppliedInOrder) {
  register_builtin_envs();
  register_scale_reward();
  auto env = make_env("CartPole-v1",
                      kwargs("{wrappers: [{test_scale_reward: {factor: 2.5}}, previous_action_reward, "
                             "{test_scale_reward: {factor: -1}}]}"));
  std::vector<float> o(7);
  env->reset(3, std::as_writable_bytes(std::span(o)));
  StepResult r;
  double sum = 0;
  do {
    r = env->step(std::int64_t{1}, std::as_writable_bytes(std::span(o)));
    EXPECT_EQ(r.reward, -2.5);  // CartPole's 1, times 2.5, times -1
    EXPECT_EQ(o[6], 2.5f);      // previous_action_reward saw the inner wrapper's reward
    sum += r.reward;
  } while (!r.done());
  // Episode statistics stay the innermost env's.
  EXPECT_EQ(env->info().episode_return, static_cast<double>(env->info().episode_length));
  EXPECT_EQ(sum, -2.5 * static_cast<double>(env->info().episode_length));

  const auto names = wrapper_names();
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  EXPECT_THAT(names, ::testing::IsSupersetOf({std::string("previous_action_reward"), std::string("select_observation"),
                                               std::string("test_scale_reward")}));
  EXPECT_THROW(register_wrapper("previous_action_reward", [](std::unique_ptr<Env> e, const YAML::Node&,
                                                             const ConfigContext&) { return e; }),
               UserError);
}

TEST(WrapperList, UnknownNamesListEveryRegisteredWrapper) {
  register_builtin_envs();
  register_scale_reward();
  try {
    make_env("CartPole-v1", kwargs("{wrappers: [previous_action_reward, {scale_reward: {factor: 2}}]}"),
             ConfigContext("p.yaml").child("env_kwargs"));
    FAIL() << "expected a UserError";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("key 'env_kwargs.wrappers[1]'"));
    EXPECT_THAT(e.what(), HasSubstr("unknown wrapper 'scale_reward'"));
    EXPECT_THAT(e.what(), HasSubstr("known: "));
    for (const auto& name : wrapper_names()) EXPECT_THAT(e.what(), HasSubstr(name));
  }
  // A registered wrapper's own argument errors name its list item and the preset's line.
  try {
    const YAML::Node preset = YAML::Load("env: CartPole-v1\nenv_kwargs:\n  wrappers:\n    - previous_action_reward\n"
                                         "    - {test_scale_reward: {}}\n");
    make_env("CartPole-v1", preset["env_kwargs"], ConfigContext("p.yaml").child("env_kwargs"));
    FAIL() << "expected a UserError";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("p.yaml:5:"));
    EXPECT_THAT(e.what(), HasSubstr("key 'env_kwargs.wrappers[1].test_scale_reward'"));
    EXPECT_THAT(e.what(), HasSubstr("test_scale_reward needs {factor}"));
  }
  EXPECT_THROW(make_env("CartPole-v1", kwargs("{wrappers: [{previous_action_reward: {x: 1}}]}")), UserError);
}

}  // namespace
}  // namespace rlzoo
