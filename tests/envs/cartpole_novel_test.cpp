// CartPoleNoVel-v1 (rl-baselines3-zoo's memory task): CartPole-v1's dynamics, rewards and time
// limit, observing only the cart position and the pole angle.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <vector>

#include "core/common/rng.h"
#include "core/env/conformance.h"
#include "tests/envs/env_test_util.h"

namespace rlzoo {
namespace {

using test::EnvHarness;

TEST(CartPoleNoVel, SpacesAndRegistration) {
  EnvHarness h("CartPoleNoVel-v1");
  const Space& os = h.env().observation_space();
  ASSERT_TRUE(os.is_box());
  EXPECT_EQ(os.dtype(), DType::Float32);
  EXPECT_EQ(os.shape(), Shape({2}));
  EXPECT_EQ(os.high(), (std::vector<double>{4.800000190734863, 0.41887903213500977}));
  EXPECT_EQ(os.low(), (std::vector<double>{-4.800000190734863, -0.41887903213500977}));
  EXPECT_EQ(h.env().id(), "CartPoleNoVel-v1");
  EXPECT_EQ(h.env().action_space(), Space::discrete(2));
  EXPECT_EQ(h.env().max_episode_steps(), 500);
  EXPECT_EQ(h.env().spec().reward_threshold, 475.0);
}

// Side by side with CartPole-v1 under the same seeds and actions, over several episodes: the
// observation is exactly entries 0 and 2 (position, angle) of CartPole's, and rewards,
// terminations, truncations and episode statistics agree.
TEST(CartPoleNoVel, DropsExactlyTheVelocitiesAndKeepsTheDynamics) {
  EnvHarness full("CartPole-v1"), novel("CartPoleNoVel-v1");
  Rng actions(7);
  std::int64_t steps = 0, episodes = 0;
  for (std::uint64_t seed = 0; seed < 5; ++seed) {
    full.reset(seed);
    novel.reset(seed);
    for (bool done = false; !done; ++steps) {
      ASSERT_EQ(novel.obs(), (std::vector<float>{full.obs()[0], full.obs()[2]})) << "seed " << seed;
      const auto a = static_cast<std::int64_t>(actions.below(2));
      const StepResult rf = full.step(a), rn = novel.step(a);
      EXPECT_EQ(rn.reward, rf.reward);
      EXPECT_EQ(rn.terminated, rf.terminated);
      EXPECT_EQ(rn.truncated, rf.truncated);
      done = rf.done();
      ASSERT_EQ(rn.done(), done);
    }
    ASSERT_EQ(novel.obs(), (std::vector<float>{full.obs()[0], full.obs()[2]}));
    EXPECT_EQ(novel.env().info().episode_return, full.env().info().episode_return);
    EXPECT_EQ(novel.env().info().episode_length, full.env().info().episode_length);
    ++episodes;
  }
  EXPECT_EQ(episodes, 5);
  EXPECT_GT(steps, 50);
}

TEST(CartPoleNoVel, SavedStateContinuesTheEpisode) {
  EnvHarness a("CartPoleNoVel-v1"), b("CartPoleNoVel-v1");
  a.reset(3);
  for (int t = 0; t < 5; ++t) a.step(t % 2);
  std::vector<float> restored(2);
  b.env().load_state(a.env().save_state(), std::as_writable_bytes(std::span<float>(restored)));
  EXPECT_EQ(restored, a.obs());
  EXPECT_EQ(b.env().elapsed_steps(), 5);
  for (int t = 0; t < 5; ++t) {
    const StepResult ra = a.step(1), rb = b.step(1);
    EXPECT_EQ(a.obs(), b.obs());
    EXPECT_EQ(ra.terminated, rb.terminated);
  }
}

TEST(CartPoleNoVel, Conformance) {
  const auto report = check_env_conformance(test::registered("CartPoleNoVel-v1"));
  EXPECT_TRUE(report.ok()) << report.summary();
  EXPECT_GT(report.steps, 0);
}

}  // namespace
}  // namespace rlzoo
