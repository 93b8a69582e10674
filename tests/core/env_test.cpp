// The Env base class: action checks, step counting, time limit, episode statistics, masks.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/registry/env_registry.h"
#include "tests/core/test_envs.h"
#include "tests/support/test_paths.h"

namespace rlzoo {
namespace {

using ::testing::HasSubstr;
using test::EchoEnv;
using test::MaskedEnv;
using test::WalkEnv;

using test::error_of;

TEST(Env, StepBeforeResetIsAnError) {
  WalkEnv env;
  float obs;
  EXPECT_THAT(error_of([&] { env.step(1, writable_bytes_of(std::span<float>(&obs, 1))); }),
              HasSubstr("env Walk-v0: step() called before reset()"));
}

TEST(Env, StepAfterEpisodeEndIsAnError) {
  WalkEnv env(1);
  float obs;
  Bytes o = writable_bytes_of(std::span<float>(&obs, 1));
  env.reset(0, o);
  StepResult r;
  for (int i = 0; i < 10 && !r.done(); ++i) r = env.step(2, o);
  ASSERT_TRUE(r.terminated);
  EXPECT_TRUE(env.needs_reset());
  EXPECT_THAT(error_of([&] { env.step(1, o); }), HasSubstr("after the episode ended"));
}

TEST(Env, DiscreteActionOutOfRangeNamesEnvActionSpace) {
  WalkEnv env;
  float obs;
  Bytes o = writable_bytes_of(std::span<float>(&obs, 1));
  env.reset(0, o);
  const std::string msg = error_of([&] { env.step(3, o); });
  EXPECT_THAT(msg, HasSubstr("env Walk-v0"));
  EXPECT_THAT(msg, HasSubstr("invalid action 3"));
  EXPECT_THAT(msg, HasSubstr("Discrete(3)"));
  EXPECT_THAT(error_of([&] { env.step(-1, o); }), HasSubstr("out of range"));
  // A Box action given to a discrete env: wrong size.
  const float wrong[3] = {0, 0, 0};
  EXPECT_THAT(error_of([&] { env.step(std::span<const float>(wrong), o); }), HasSubstr("has 12 bytes"));
  EXPECT_THAT(error_of([&] { env.step(std::span<const float>(wrong, 1), o); }), HasSubstr("has 4 bytes, the space needs 8"));
}

TEST(Env, AnObservationBufferOfTheWrongSizeIsRefusedAndTheEnvDoesNotStep) {
  WalkEnv env;
  float obs[2] = {0, 0};
  Bytes o = writable_bytes_of(std::span<float>(obs, 1));
  env.reset(0, o);
  const std::string msg = error_of([&] { env.step(1, writable_bytes_of(std::span<float>(obs, 2))); });
  EXPECT_THAT(msg, HasSubstr("env Walk-v0: step() was given an observation buffer of 8 bytes"));
  EXPECT_THAT(msg, HasSubstr("needs 4"));
  EXPECT_EQ(env.elapsed_steps(), 0);
  env.step(1, o);  // the right buffer: the episode goes on
  EXPECT_EQ(env.elapsed_steps(), 1);
}

TEST(Env, BoxActionsFiniteAlwaysBoundsOnlyWhenStrict) {
  EchoEnv env;
  float obs[2];
  Bytes o = writable_bytes_of(std::span<float>(obs));
  env.reset(0, o);
  const float out_of_bounds[2] = {3.0f, -0.5f};
  EXPECT_NO_THROW(env.step(std::span<const float>(out_of_bounds), o));  // Gymnasium accepts (envs clip)
  EXPECT_EQ(obs[0], 3.0f);
  const float nan_action[2] = {0.0f, std::nanf("")};
  EXPECT_THAT(error_of([&] { env.step(std::span<const float>(nan_action), o); }), HasSubstr("element 1 is not finite"));
  env.set_strict_actions(true);
  EXPECT_THAT(error_of([&] { env.step(std::span<const float>(out_of_bounds), o); }),
              HasSubstr("outside the bounds (strict mode)"));
  // Off again: the step's inline path takes the action as before.
  env.set_strict_actions(false);
  EXPECT_NO_THROW(env.step(std::span<const float>(out_of_bounds), o));
  EXPECT_THAT(error_of([&] { env.step(std::span<const float>(nan_action), o); }), HasSubstr("element 1 is not finite"));
}

TEST(Env, TimeLimitTruncatesExactlyAndStatsAddUp) {
  WalkEnv env(100, 7);
  float obs;
  Bytes o = writable_bytes_of(std::span<float>(&obs, 1));
  env.reset(11, o);
  double sum = 0;
  for (int t = 1; t <= 7; ++t) {
    const StepResult r = env.step(t % 2 ? 2 : 0, o);
    sum += r.reward;
    EXPECT_FALSE(r.terminated);
    EXPECT_EQ(r.truncated, t == 7) << t;
    EXPECT_EQ(env.info().episode_done, t == 7);
    EXPECT_EQ(env.elapsed_steps(), t);
  }
  EXPECT_DOUBLE_EQ(env.info().episode_return, sum);
  EXPECT_EQ(env.info().episode_length, 7);
  EXPECT_THROW(env.set_max_episode_steps(-1), UserError);
}

TEST(Env, TerminationAndTruncationCanCoincide) {
  WalkEnv env(3, 3);
  float obs;
  Bytes o = writable_bytes_of(std::span<float>(&obs, 1));
  for (std::uint64_t seed = 0;; ++seed) {  // find a reset at position 0
    env.reset(seed, o);
    if (env.position() == 0) break;
  }
  env.step(2, o);
  env.step(2, o);
  const StepResult r = env.step(2, o);
  EXPECT_TRUE(r.terminated);
  EXPECT_TRUE(r.truncated);
}

TEST(Env, SameSeedSameResetDifferentSeedsDiffer) {
  WalkEnv a, b;
  float oa, ob;
  std::set<int> positions;
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    a.reset(seed, writable_bytes_of(std::span<float>(&oa, 1)));
    b.reset(seed, writable_bytes_of(std::span<float>(&ob, 1)));
    EXPECT_EQ(oa, ob);
    positions.insert(a.position());
  }
  EXPECT_EQ(positions.size(), 3u);
}

TEST(Env, ActionMaskRejectsIllegalActionsAndListsLegalOnes) {
  MaskedEnv env;
  float obs;
  Bytes o = writable_bytes_of(std::span<float>(&obs, 1));
  env.reset(0, o);
  ASSERT_EQ(env.action_mask().size(), 4u);
  EXPECT_EQ(env.action_mask()[0], 1);
  env.step(0, o);
  EXPECT_EQ(env.action_mask()[0], 0);
  const std::string msg = error_of([&] { env.step(0, o); });
  EXPECT_THAT(msg, HasSubstr("not legal now (legal: 1, 2, 3)"));
  EXPECT_NO_THROW(env.step(1, o));
}

TEST(Env, InfoScalars) {
  Info info;
  info.set_scalar("a", 1.0);
  info.set_scalar("b", 2.0);
  info.set_scalar("a", 3.0);
  EXPECT_EQ(info.num_scalars, 2);
  EXPECT_EQ(info.scalar("a"), 3.0);
  EXPECT_FALSE(info.scalar("c").has_value());
}

// Reports the scalar "odd" on odd steps only and ends its episode on step 4.
class OddStepsEnv : public Env {
 public:
  OddStepsEnv() : Env(EnvSpec{"OddSteps-v0", Space::box(0, 10, {1}), Space::discrete(2), 0}) {}

 protected:
  void do_reset(std::optional<std::uint64_t>, Bytes obs) override {
    step_ = 0;
    as_span<float>(obs)[0] = 0;
  }
  StepResult do_step(ConstBytes, Bytes obs) override {
    ++step_;
    if (step_ % 2 == 1) mutable_info().set_scalar("odd", step_);
    as_span<float>(obs)[0] = static_cast<float>(step_);
    return {1.0, step_ == 4, false};
  }

 private:
  int step_ = 0;
};

// Scalars last one step and episode_done marks the step that ends the episode only, although
// step() writes neither when the env did not write its Info.
TEST(Env, InfoScalarsAndEpisodeDoneLastOneStep) {
  OddStepsEnv env;
  std::vector<float> obs(1);
  const auto o = std::as_writable_bytes(std::span(obs));
  for (int episode = 0; episode < 2; ++episode) {
    const Info& after_reset = env.reset(std::nullopt, o);
    EXPECT_EQ(after_reset.num_scalars, 0);
    EXPECT_FALSE(after_reset.episode_done);
    for (int t = 1; t <= 4; ++t) {
      env.step(0, o);
      EXPECT_EQ(env.info().scalar("odd").has_value(), t % 2 == 1) << "episode " << episode << ", step " << t;
      EXPECT_EQ(env.info().num_scalars, t % 2) << "episode " << episode << ", step " << t;
      EXPECT_EQ(env.info().episode_done, t == 4) << "episode " << episode << ", step " << t;
    }
    EXPECT_EQ(env.info().episode_return, 4.0);
  }
}

TEST(EnvRegistry, UnknownIdListsCloseMatches) {
  if (!env_registry().contains("Walk-v0"))
    register_env("Walk-v0", {[](const YAML::Node&, const ConfigContext&) { return std::make_unique<WalkEnv>(); }, 9,
                             5.0, "test walk"});
  auto env = make_env("Walk-v0");
  EXPECT_EQ(env->max_episode_steps(), 9);
  EXPECT_EQ(env->spec().reward_threshold, 5.0);
  EXPECT_THAT(error_of([] { make_env("Walk-v1"); }), HasSubstr("unknown env 'Walk-v1'; did you mean: Walk-v0?"));
  EXPECT_THAT(error_of([] { register_env("Walk-v0", {}); }), HasSubstr("registered twice"));
}

}  // namespace
}  // namespace rlzoo
