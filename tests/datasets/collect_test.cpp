// Collecting episodes from an env: what is recorded replays exactly, one seed gives one
// dataset, epsilon and noise act as documented, masks are respected.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>

#include "datasets/collect.h"
#include "datasets/dataset_reader.h"
#include "core/registry/env_registry.h"
#include "envs/builtin.h"
#include "tests/core/test_envs.h"
#include "tests/support/test_paths.h"

namespace rlzoo::data {
namespace {

using ::testing::HasSubstr;
namespace fs = std::filesystem;

// Always the same action; remembers which observations started an episode.
class ConstantPolicy : public CollectPolicy {
 public:
  explicit ConstantPolicy(std::vector<std::byte> action) : action_(std::move(action)) {}
  void seed(std::uint64_t) override {}
  void act(const Env&, ConstBytes, bool episode_start, Bytes action) override {
    starts.push_back(episode_start);
    std::memcpy(action.data(), action_.data(), action_.size());
  }
  std::vector<bool> starts;

 private:
  std::vector<std::byte> action_;
};

template <class T>
std::vector<std::byte> bytes_of_value(T v) {
  std::vector<std::byte> b(sizeof v);
  std::memcpy(b.data(), &v, sizeof v);
  return b;
}

std::vector<EpisodeData> collect(Env& env, CollectPolicy& policy, const CollectOptions& options) {
  const fs::path dir = fs::path(test::make_temp_dir("rlzoo-collect")) / "d";
  DatasetWriter out(dir, env.id(), env.observation_space(), env.action_space(), nullptr);
  collect_episodes(env, policy, options, out);
  out.close();
  return DatasetReader(dir).read_all();
}

std::vector<EpisodeData> collect(const std::string& env_id, CollectPolicy& policy, const CollectOptions& options) {
  register_builtin_envs();
  return collect(*make_env(env_id), policy, options);
}

TEST(Collect, RecordedEpisodesReplayExactlyInTheEnv) {
  RandomPolicy random;
  CollectOptions options;
  options.episodes = 4;
  options.seed = 3;
  const auto episodes = collect("CartPole-v1", random, options);
  ASSERT_EQ(episodes.size(), 4u);
  auto env = make_env("CartPole-v1");
  const std::size_t obs_size = env->observation_space().byte_size(), act_size = env->action_space().byte_size();
  std::vector<std::byte> obs(obs_size);
  for (std::size_t i = 0; i < episodes.size(); ++i) {
    const EpisodeData& e = episodes[i];
    env->reset(derive_seed(3, i), obs);
    for (std::int64_t t = 0; t < e.length(); ++t) {
      const auto k = static_cast<std::size_t>(t);
      ASSERT_TRUE(std::equal(obs.begin(), obs.end(), e.observations.begin() + static_cast<std::ptrdiff_t>(k * obs_size)))
          << "episode " << i << " step " << t;
      const StepResult r = env->step(ConstBytes(e.actions).subspan(k * act_size, act_size), obs);
      EXPECT_EQ(e.rewards[k], static_cast<float>(r.reward));
      EXPECT_EQ(r.done(), t + 1 == e.length());
      if (r.done()) {
        EXPECT_EQ(e.terminated, r.terminated);
        EXPECT_EQ(e.truncated, r.truncated);
      }
    }
    EXPECT_EQ(e.final_observation, obs);
  }
}

// A step budget records whole episodes until the total reaches it; an episode cap stops earlier.
TEST(Collect, StepBudgetRecordsWholeEpisodesUntilItIsReached) {
  RandomPolicy random;
  CollectOptions options;
  options.episodes = 0;
  options.steps = 100;
  options.seed = 4;
  const auto episodes = collect("CartPole-v1", random, options);
  std::int64_t total = 0;
  for (std::size_t i = 0; i < episodes.size(); ++i) {
    EXPECT_LT(total, 100) << "episode " << i << " started after the budget was reached";
    total += episodes[i].length();
    EXPECT_TRUE(episodes[i].terminated || episodes[i].truncated) << "episode " << i << " is whole";
  }
  EXPECT_GE(total, 100);
  options.episodes = 2;
  EXPECT_EQ(collect("CartPole-v1", random, options).size(), 2u);
  auto env = make_env("CartPole-v1");
  options.episodes = 0;
  options.steps = 0;
  EXPECT_THROW(check_collect_options(*env, options), UserError);
}

TEST(Collect, OneSeedGivesOneDatasetAndOtherSeedsOthers) {
  CollectOptions options;
  options.episodes = 3;
  options.seed = 11;
  RandomPolicy p1, p2, p3;
  const auto a = collect("Pendulum-v1", p1, options);
  const auto b = collect("Pendulum-v1", p2, options);
  options.seed = 12;
  const auto c = collect("Pendulum-v1", p3, options);
  ASSERT_EQ(a.size(), 3u);
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].observations, b[i].observations);
    EXPECT_EQ(a[i].actions, b[i].actions);
    EXPECT_EQ(a[i].rewards, b[i].rewards);
    EXPECT_NE(a[i].observations, c[i].observations);
    EXPECT_NE(a[i].actions, c[i].actions);
  }
  // Episodes of one run start from different states (each is reset with its own seed).
  EXPECT_NE(std::vector<std::byte>(a[0].observations.begin(), a[0].observations.begin() + 12),
            std::vector<std::byte>(a[1].observations.begin(), a[1].observations.begin() + 12));
}

std::vector<std::int64_t> discrete_actions(const std::vector<EpisodeData>& episodes) {
  std::vector<std::int64_t> out;
  for (const auto& e : episodes) {
    const auto n = e.actions.size() / 8;
    for (std::size_t i = 0; i < n; ++i) {
      std::int64_t a;
      std::memcpy(&a, e.actions.data() + 8 * i, 8);
      out.push_back(a);
    }
  }
  return out;
}

double fraction_of(const std::vector<std::int64_t>& actions, std::int64_t value) {
  return static_cast<double>(std::count(actions.begin(), actions.end(), value)) / static_cast<double>(actions.size());
}

TEST(Collect, EpsilonReplacesThatShareOfActionsByRandomOnes) {
  CollectOptions options;
  options.episodes = 30;
  ConstantPolicy zero(bytes_of_value<std::int64_t>(0));
  const auto greedy = discrete_actions(collect("CartPole-v1", zero, options));
  EXPECT_EQ(fraction_of(greedy, 1), 0.0);
  // Every observation that began an episode was flagged, and only those.
  EXPECT_EQ(std::count(zero.starts.begin(), zero.starts.end(), true), 30);
  EXPECT_TRUE(zero.starts.front());

  options.epsilon = 1.0;
  ConstantPolicy zero1(bytes_of_value<std::int64_t>(0));
  const auto random = discrete_actions(collect("CartPole-v1", zero1, options));
  EXPECT_NEAR(fraction_of(random, 1), 0.5, 0.06) << random.size() << " actions";

  options.epsilon = 0.4;
  options.episodes = 60;
  ConstantPolicy zero2(bytes_of_value<std::int64_t>(0));
  const auto mixed = discrete_actions(collect("CartPole-v1", zero2, options));
  EXPECT_NEAR(fraction_of(mixed, 1), 0.2, 0.05) << mixed.size() << " actions";
}

TEST(Collect, NoiseIsGaussianAroundThePolicyAndClippedToTheBounds) {
  CollectOptions options;
  options.episodes = 2;  // 400 steps
  options.noise = 0.5;
  ConstantPolicy near_high(bytes_of_value<float>(1.5f));  // Pendulum: Box(-2, 2, (1,))
  const auto episodes = collect("Pendulum-v1", near_high, options);
  std::vector<float> actions;
  for (const auto& e : episodes) {
    const auto* p = reinterpret_cast<const float*>(e.actions.data());
    actions.insert(actions.end(), p, p + e.actions.size() / 4);
  }
  ASSERT_EQ(actions.size(), 400u);
  double sum = 0;
  int clipped = 0;
  for (float a : actions) {
    EXPECT_TRUE(a >= -2.0f && a <= 2.0f) << a;
    clipped += a == 2.0f;
    sum += a;
  }
  // P(1.5 + 0.5 N > 2) = 16%: about 63 of 400 clipped; the clipped mean is below 1.5.
  EXPECT_GT(clipped, 35);
  EXPECT_LT(clipped, 95);
  EXPECT_NEAR(sum / 400, 1.5 - 0.5 * 0.0833, 0.06);

  ConstantPolicy zero(bytes_of_value<std::int64_t>(0));
  EXPECT_THAT(test::error_of([&] { collect("CartPole-v1", zero, options); }),
              HasSubstr("collect: noise is added to float Box actions; CartPole-v1 has action space Discrete(2)"));
  options.noise = 0;
  options.epsilon = 1.5;
  EXPECT_THAT(test::error_of([&] { collect("CartPole-v1", zero, options); }),
              HasSubstr("collect: epsilon must be in [0, 1], got 1.5"));
}

TEST(Collect, RandomActionsAreLegalUnderMasksAndCandidates) {
  // Masked-v0 allows only actions >= the step count; an illegal action would throw in step().
  test::MaskedEnv masked;
  RandomPolicy random;
  CollectOptions options;
  options.episodes = 50;
  std::vector<int> counts(4);
  for (const auto& e : collect(masked, random, options)) {
    const auto actions = discrete_actions({e});
    ASSERT_EQ(actions.size(), 3u);
    for (std::size_t t = 0; t < 3; ++t) {
      EXPECT_GE(actions[t], static_cast<std::int64_t>(t));
      ++counts[static_cast<std::size_t>(actions[t])];
    }
  }
  for (int c : counts) EXPECT_GT(c, 0);  // every action is drawn where legal
  // Epsilon's random actions too, whatever the policy would do.
  options.epsilon = 1.0;
  ConstantPolicy zero(bytes_of_value<std::int64_t>(0));
  EXPECT_EQ(collect(masked, zero, options).size(), 50u);

  // DouDizhu-v0: the action is an index into the acting player's legal moves.
  options.episodes = 2;
  options.epsilon = 0;
  const auto games = collect("DouDizhu-v0", random, options);
  ASSERT_EQ(games.size(), 2u);
  for (const auto& e : games) EXPECT_TRUE(e.terminated);
}

}  // namespace
}  // namespace rlzoo::data
