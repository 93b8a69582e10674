// The inline backend's source (core/runtime/inline_source.h): the learner's thread as the one
// actor gives the trajectories an actor thread gives, cut where asked, with episode starts
// carried from round to round (torch-free: ASan and UBSan run it too; it starts no thread).
#include <gtest/gtest.h>

#include <map>

#include "core/common/rng.h"
#include "core/runtime/actor_loop.h"
#include "core/runtime/inline_source.h"
#include "tests/core/test_envs.h"

namespace rlzoo {
namespace {

// Random walk actions from one stream per env; the extras record the episode-start flag the
// policy was shown and the actor's step.
class StartsPolicy : public ActorPolicy {
 public:
  std::size_t num_extras() const override { return 2; }
  bool act(const ActBatch& b) override {
    auto actions = as_span<std::int64_t>(b.actions);
    for (std::int64_t r = 0; r < b.rows; ++r) {
      auto [it, fresh] = rngs_.try_emplace(b.first_env + r, derive_seed(7, static_cast<std::uint64_t>(b.first_env + r)));
      const auto i = static_cast<std::size_t>(r);
      actions[i] = static_cast<std::int64_t>(it->second.below(3));
      b.extras[2 * i] = b.episode_starts.empty() ? -1.0f : static_cast<float>(b.episode_starts[i]);
      b.extras[2 * i + 1] = static_cast<float>(b.step);
    }
    return true;
  }

 private:
  std::map<std::int64_t, Rng> rngs_;
};

std::unique_ptr<VectorEnv> walk_envs(std::int64_t n) {
  std::vector<std::unique_ptr<Env>> envs;
  for (std::int64_t i = 0; i < n; ++i) envs.push_back(std::make_unique<test::WalkEnv>(3, 7));
  auto v = std::make_unique<SyncVectorEnv>(std::move(envs));
  v->reset(100);
  return v;
}

class VectorSink : public TrajectorySink {
 public:
  bool push(Trajectory t) override {
    out.push_back(std::move(t));
    return true;
  }
  std::vector<Trajectory> out;
};

TEST(InlineSource, GivesTheTrajectoriesOfAnActorThread) {
  auto actor_envs = walk_envs(3);
  StartsPolicy actor_policy;
  VectorSink sink;
  ActorLoopOptions o;
  o.steps_per_trajectory = 5;
  o.max_trajectories = 4;
  StopSource never;
  ASSERT_EQ(run_actor_loop(*actor_envs, actor_policy, sink, o, never), 4);

  auto envs = walk_envs(3);
  StartsPolicy policy;
  InlineSourceOptions options;
  options.steps_per_round = 5;
  InlineTrajectorySource source(*envs, policy, std::move(options));
  int done = 0;
  for (std::size_t k = 0; k < 4; ++k) {
    SCOPED_TRACE("round " + std::to_string(k));
    auto round = source.next_round();
    ASSERT_TRUE(round.has_value());
    const Trajectory& a = sink.out[k];
    EXPECT_EQ(round->sequence, k);
    EXPECT_EQ(round->shape, a.shape);
    EXPECT_EQ(round->obs, a.obs);
    EXPECT_EQ(round->actions, a.actions);
    EXPECT_EQ(round->extras, a.extras);
    EXPECT_EQ(round->rewards, a.rewards);
    EXPECT_EQ(round->terminated, a.terminated);
    EXPECT_EQ(round->next_obs, a.next_obs);
    for (auto d : a.terminated) done += d;
    source.recycle(std::move(*round));  // storage reused: the next round overwrites all of it
  }
  EXPECT_GT(done, 0) << "the rounds should cross episode ends, whose starts the policy sees";
}

TEST(InlineSource, CutsARoundShortAndCarriesEpisodeStartsOn) {
  auto envs = walk_envs(2);
  StartsPolicy policy;
  std::int64_t next_steps = 4;
  InlineSourceOptions options;
  options.steps_per_round = 4;
  options.round_steps = [&] { return next_steps; };
  options.episode_starts = {0, 1};  // env 0 goes on with an episode, env 1 starts one
  InlineTrajectorySource source(*envs, policy, std::move(options));

  auto first = source.next_round();
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->extras_at(0)[0], 0.0f);
  EXPECT_EQ(first->extras_at(0)[2], 1.0f);
  next_steps = 3;
  auto second = source.next_round();
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(second->num_steps(), 3);
  EXPECT_EQ(second->obs.size(), 3u * 2u * sizeof(float));
  EXPECT_EQ(ConstBytes(first->next_obs).size(), second->obs_at(0).size());
  EXPECT_TRUE(std::equal(first->next_obs.begin(), first->next_obs.end(), second->obs_at(0).begin()))
      << "a round begins where the last one ended";
  for (std::size_t e = 0; e < 2; ++e) {
    const bool ended = first->terminated_at(3)[e] || first->truncated_at(3)[e];
    EXPECT_EQ(second->extras_at(0)[2 * e], ended ? 1.0f : 0.0f) << "env " << e;
    EXPECT_EQ(second->extras_at(0)[2 * e + 1], 4.0f) << "the actor's steps go on";
  }
  EXPECT_EQ(source.episode_starts().size(), 2u);
  source.stop();
  EXPECT_FALSE(source.next_round().has_value());
}

TEST(InlineSource, RefusesARoundLongerThanItsSteps) {
  auto envs = walk_envs(1);
  StartsPolicy policy;
  InlineSourceOptions options;
  options.steps_per_round = 2;
  options.round_steps = [] { return std::int64_t{3}; };
  InlineTrajectorySource source(*envs, policy, std::move(options));
  EXPECT_THROW(source.next_round(), std::exception);
}

}  // namespace
}  // namespace rlzoo
