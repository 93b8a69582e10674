#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include <nlohmann/json.hpp>

#include "core/wrappers/wrappers.h"
#include "tests/core/test_envs.h"
#include "tests/support/test_paths.h"

namespace rlzoo {
namespace {

using ::testing::HasSubstr;

TEST(Wrappers, TimeLimitTruncatesAndInnerStatsShowThrough) {
  TimeLimit env(std::make_unique<test::WalkEnv>(100), 5);
  float obs;
  Bytes o = writable_bytes_of(std::span<float>(&obs, 1));
  env.reset(3, o);
  StepResult r;
  for (int t = 0; t < 5; ++t) r = env.step(1, o);
  EXPECT_TRUE(r.truncated);
  EXPECT_FALSE(r.terminated);
  EXPECT_TRUE(env.info().episode_done);
  EXPECT_EQ(env.info().episode_length, 5);
  EXPECT_THROW(TimeLimit(std::make_unique<test::WalkEnv>(), 0), UserError);
}

TEST(Wrappers, RecordEpisodeStatisticsKeepsWindow) {
  RecordEpisodeStatistics env(std::make_unique<test::WalkEnv>(1), 2);
  float obs;
  Bytes o = writable_bytes_of(std::span<float>(&obs, 1));
  for (int ep = 0; ep < 3; ++ep) {
    env.reset(static_cast<std::uint64_t>(ep), o);
    while (!env.step(2, o).done()) {
    }
    EXPECT_TRUE(env.info().scalar("episode_time").has_value());
  }
  EXPECT_EQ(env.episode_count(), 3);
  EXPECT_EQ(env.return_queue().size(), 2u);
  EXPECT_GE(env.length_queue().back(), 1);
}

TEST(Wrappers, ClipActionClipsToInnerBounds) {
  ClipAction env(std::make_unique<test::EchoEnv>());
  EXPECT_FALSE(env.action_space().is_bounded());
  float obs[2];
  Bytes o = writable_bytes_of(std::span<float>(obs));
  env.reset(0, o);
  const float a[2] = {5.0f, -0.25f};
  env.step(std::span<const float>(a), o);
  EXPECT_EQ(obs[0], 1.0f);
  EXPECT_EQ(obs[1], -0.25f);
  EXPECT_THAT([] {
    try {
      ClipAction bad(std::make_unique<test::WalkEnv>());
    } catch (const UserError& e) {
      return std::string(e.what());
    }
    return std::string();
  }(), HasSubstr("ClipAction needs a float32 Box action space, but env Walk-v0 has Discrete(3)"));
}

TEST(Wrappers, RescaleActionMapsLinearly) {
  RescaleAction env(std::make_unique<test::EchoEnv>(), 0.0, 4.0);
  EXPECT_EQ(env.action_space().describe(), "Box(0, 4, (2,), float32)");
  float obs[2];
  Bytes o = writable_bytes_of(std::span<float>(obs));
  env.reset(0, o);
  const float a[2] = {0.0f, 3.0f};
  env.step(std::span<const float>(a), o);
  EXPECT_FLOAT_EQ(obs[0], -1.0f);
  EXPECT_FLOAT_EQ(obs[1], 0.5f);
}

// A feature that never varies (variance 0) stays finite thanks to epsilon > 0; an epsilon <= 0
// is refused where the wrapper is made.
TEST(Wrappers, NormalizationOfAConstantFeatureStaysFiniteAndEpsilonMustBePositive) {
  NormalizeObservation env(std::make_unique<test::EchoEnv>());
  float obs[2];
  Bytes o = writable_bytes_of(std::span<float>(obs));
  env.reset(0, o);
  const float same[2] = {0.25f, 0.25f};
  for (int i = 0; i < 1000; ++i) {
    env.step(std::span<const float>(same, 2), o);
    ASSERT_TRUE(std::isfinite(obs[0]) && std::isfinite(obs[1])) << "step " << i;
    if (env.needs_reset()) env.reset(std::nullopt, o);
  }
  // Statistics with a variance of exactly 0 (a feature that never changed): still finite.
  nlohmann::json state = env.save_state();
  state["obs_rms"]["var"] = std::vector<double>{0.0, 0.0};
  state["obs_rms"]["mean"] = std::vector<double>{0.25, 0.0};
  env.load_state(state);
  env.set_update(false);
  if (env.needs_reset()) env.reset(std::nullopt, o);
  env.step(std::span<const float>(same, 2), o);
  EXPECT_EQ(obs[0], 0.0f);
  EXPECT_TRUE(std::isfinite(obs[1]));
  EXPECT_THAT(test::error_of([] { NormalizeObservation(std::make_unique<test::EchoEnv>(), 0.0); }),
              ::testing::HasSubstr("epsilon"));
  EXPECT_THAT(test::error_of([] { NormalizeReward(std::make_unique<test::EchoEnv>(), 0.99, -1.0); }),
              ::testing::HasSubstr("epsilon"));
}

TEST(Wrappers, NormalizeObservationMatchesRunningStatistics) {
  NormalizeObservation env(std::make_unique<test::EchoEnv>());
  float obs[2];
  Bytes o = writable_bytes_of(std::span<float>(obs));
  env.reset(0, o);
  // After the reset observation (0, 0) and actions a_k, the statistics are those of the
  // sequence with the initial count 1e-4 at mean 0, var 1.
  const float actions[3][2] = {{1, -1}, {0.5f, 0.5f}, {-1, 0}};
  RunningMeanStd ref(2);
  const double zero[2] = {0, 0};
  ref.update(zero, 1);
  for (const auto& a : actions) {
    env.step(std::span<const float>(a, 2), o);
    const double x[2] = {a[0], a[1]};
    ref.update(x, 1);
    for (int i = 0; i < 2; ++i)
      EXPECT_FLOAT_EQ(obs[i], static_cast<float>((x[i] - ref.mean()[static_cast<std::size_t>(i)]) /
                                                 std::sqrt(ref.var()[static_cast<std::size_t>(i)] + 1e-8)));
  }
  // Freeze, save, restore into a fresh wrapper: identical outputs.
  env.set_update(false);
  const auto state = save_wrapper_states(env);
  NormalizeObservation other(std::make_unique<test::EchoEnv>());
  load_wrapper_states(other, state);
  set_wrappers_update(other, false);
  float obs2[2];
  other.reset(0, writable_bytes_of(std::span<float>(obs2)));
  env.reset(0, o);
  EXPECT_EQ(obs[0], obs2[0]);
  EXPECT_EQ(other.stats().mean(), env.stats().mean());
  EXPECT_EQ(other.stats().count(), env.stats().count());
}

TEST(Wrappers, NormalizeRewardScalesByReturnStd) {
  NormalizeReward env(std::make_unique<test::EchoEnv>(), 0.9);
  float obs[2];
  Bytes o = writable_bytes_of(std::span<float>(obs));
  env.reset(0, o);
  RunningMeanStd ref(1);
  double ret = 0;
  const float a[2] = {1.0f, 0.0f};
  for (int t = 0; t < 5; ++t) {  // EchoEnv's time limit is 5
    const StepResult r = env.step(std::span<const float>(a), o);
    ret = ret * 0.9 + 1.0;
    ref.update(ret);
    EXPECT_DOUBLE_EQ(r.reward, 1.0 / std::sqrt(ref.var()[0] + 1e-8));
    EXPECT_DOUBLE_EQ(env.info().episode_done ? env.info().episode_return : 0.0, t == 4 ? 5.0 : 0.0);  // raw return
  }
}

TEST(Wrappers, StateOfAnotherShapeIsRejected) {
  NormalizeObservation env(std::make_unique<test::EchoEnv>());
  RunningMeanStd wrong(3);
  EXPECT_THROW(env.load_state({{"obs_rms", wrong.state()}}), UserError);
}

TEST(Wrappers, SelectObservationKeepsTheChosenEntriesInOrder) {
  SelectObservation env(std::make_unique<test::EchoEnv>(), {1, 0, 1}, "EchoSwapped-v0");
  EXPECT_EQ(env.id(), "EchoSwapped-v0");
  EXPECT_EQ(env.observation_space(), Space::box(-10, 10, {3}));
  EXPECT_EQ(env.action_space(), Space::box(-1, 1, {2}));
  std::vector<float> obs(3, -5.0f);
  Bytes o = writable_bytes_of(std::span<float>(obs));
  env.reset(0, o);
  EXPECT_EQ(obs, (std::vector<float>{0, 0, 0}));
  const float a[2] = {0.25f, -0.5f};
  const StepResult r = env.step(std::span<const float>(a), o);
  EXPECT_EQ(obs, (std::vector<float>{-0.5f, 0.25f, -0.5f}));
  EXPECT_EQ(r.reward, -0.25);
  EXPECT_EQ(SelectObservation(std::make_unique<test::EchoEnv>(), {0}).id(), "Echo-v0");  // keeps the id by default
}

TEST(Wrappers, SelectObservationRejectsBadIndices) {
  EXPECT_THAT(test::error_of([] { SelectObservation(std::make_unique<test::EchoEnv>(), {0, 2}); }),
              HasSubstr("index 2 is out of range"));
  EXPECT_THAT(test::error_of([] { SelectObservation(std::make_unique<test::EchoEnv>(), {}); }),
              HasSubstr("no indices given"));
}

TEST(RunningMeanStd, BatchUpdateEqualsSequentialMoments) {
  RunningMeanStd rms(1, 0.0 + 1e-12);
  const double xs[5] = {1, 2, 3, 4, 10};
  rms.update(xs, 5);
  EXPECT_NEAR(rms.mean()[0], 4.0, 1e-9);
  EXPECT_NEAR(rms.var()[0], 10.0, 1e-9);  // population variance
}

}  // namespace
}  // namespace rlzoo
