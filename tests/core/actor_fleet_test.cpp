// Actor threads, trajectory rounds, shutdown and error propagation (torch-free; also under TSan).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>

#include "core/common/rng.h"
#include "core/platform/thread_priority.h"
#include "core/runtime/actor_fleet.h"
#include "tests/core/test_envs.h"

namespace rlzoo {
namespace {

using namespace std::chrono_literals;

// Random walk actions from one random stream per global env index, so an env behaves the
// same whichever actor steps it. Optionally throws at a given step.
class StreamPolicy : public ActorPolicy {
 public:
  explicit StreamPolicy(std::int64_t throw_at_step = -1) : throw_at_(throw_at_step) {}
  std::size_t num_extras() const override { return 1; }
  bool act(const ActBatch& b) override {
    if (b.step == throw_at_) throw UserError("policy failed on purpose");
    auto actions = as_span<std::int64_t>(b.actions);
    for (std::int64_t r = 0; r < b.rows; ++r) {
      Rng& rng = stream(b.first_env + r);
      actions[static_cast<std::size_t>(r)] = static_cast<std::int64_t>(rng.below(3));
      b.extras[static_cast<std::size_t>(r)] = static_cast<float>(b.step);
    }
    return true;
  }

 private:
  Rng& stream(std::int64_t env) {
    auto [it, fresh] = rngs_.try_emplace(env, derive_seed(42, static_cast<std::uint64_t>(env)));
    return it->second;
  }
  std::int64_t throw_at_;
  std::map<std::int64_t, Rng> rngs_;
};

ActorFleet::EnvFactory walk_envs(std::int64_t per_actor) {
  return [per_actor](int) {
    std::vector<std::unique_ptr<Env>> envs;
    for (std::int64_t i = 0; i < per_actor; ++i) envs.push_back(std::make_unique<test::WalkEnv>(3, 7));
    return std::make_unique<SyncVectorEnv>(std::move(envs));
  };
}

std::vector<Trajectory> collect_rounds(int actors, std::int64_t per_actor, int rounds, std::size_t capacity = 2) {
  ActorFleetOptions o;
  o.actors = actors;
  o.envs_per_actor = per_actor;
  o.steps_per_trajectory = 9;
  o.queue_capacity = capacity;
  o.reset_seed = 100;
  ActorFleet fleet(o, walk_envs(per_actor), [](int) { return std::make_unique<StreamPolicy>(); });
  fleet.start();
  std::vector<Trajectory> out;
  for (int k = 0; k < rounds; ++k) {
    auto round = fleet.next_round();
    EXPECT_TRUE(round.has_value());
    if (!round) break;
    EXPECT_EQ(round->sequence, static_cast<std::uint64_t>(k));
    out.push_back(std::move(*round));
  }
  fleet.stop();
  EXPECT_LE(fleet.trajectories_pushed(), static_cast<std::uint64_t>(rounds + static_cast<int>(capacity)) * actors)
      << "back-pressure: no actor runs more than queue_capacity trajectories ahead";
  return out;
}

void expect_same(const Trajectory& a, const Trajectory& b) {
  EXPECT_EQ(a.shape, b.shape);
  EXPECT_EQ(a.obs, b.obs);
  EXPECT_EQ(a.actions, b.actions);
  EXPECT_EQ(a.extras, b.extras);
  EXPECT_EQ(a.rewards, b.rewards);
  EXPECT_EQ(a.terminated, b.terminated);
  EXPECT_EQ(a.truncated, b.truncated);
  EXPECT_EQ(a.next_obs, b.next_obs);
  for (std::int64_t t = 0; t < a.num_steps(); ++t)
    for (std::int64_t e = 0; e < a.num_envs(); ++e) {
      const auto i = static_cast<std::size_t>(t * a.num_envs() + e);
      if (!a.terminated[i] && !a.truncated[i]) continue;
      EXPECT_EQ(a.episode_returns[i], b.episode_returns[i]);
      EXPECT_EQ(a.episode_lengths[i], b.episode_lengths[i]);
      EXPECT_EQ(std::vector<std::byte>(a.final_obs.begin() + i * 4, a.final_obs.begin() + i * 4 + 4),
                std::vector<std::byte>(b.final_obs.begin() + i * 4, b.final_obs.begin() + i * 4 + 4));
    }
}

TEST(RuntimeActorFleet, RoundsAreTheSameFromOneOrManyActors) {
  const auto one = collect_rounds(1, 4, 6);
  const auto two = collect_rounds(2, 2, 6);
  const auto four = collect_rounds(4, 1, 6, 1);
  ASSERT_EQ(one.size(), 6u);
  ASSERT_EQ(two.size(), 6u);
  ASSERT_EQ(four.size(), 6u);
  int episode_ends = 0;
  for (std::size_t k = 0; k < one.size(); ++k) {
    SCOPED_TRACE("round " + std::to_string(k));
    expect_same(one[k], two[k]);
    expect_same(one[k], four[k]);
    for (auto d : one[k].terminated) episode_ends += d;
    for (auto d : one[k].truncated) episode_ends += d;
  }
  EXPECT_GT(episode_ends, 0) << "the rounds should cross episode ends";
}

TEST(RuntimeActorFleet, TrajectoryRowsFollowTheEnvs) {
  const auto rounds = collect_rounds(2, 2, 3);
  for (std::size_t k = 0; k < rounds.size(); ++k) {
    const Trajectory& tr = rounds[k];
    for (std::int64_t t = 0; t < tr.num_steps(); ++t) {
      auto obs = as_span<const float>(tr.obs_at(t));
      auto next = as_span<const float>(tr.next_obs_at(t));
      auto act = as_span<const std::int64_t>(tr.actions_at(t));
      for (std::int64_t e = 0; e < tr.num_envs(); ++e) {
        const auto i = static_cast<std::size_t>(e);
        const bool done = tr.terminated_at(t)[i] || tr.truncated_at(t)[i];
        const float after = done ? as_span<const float>(tr.final_obs_at(t))[i] : next[i];
        EXPECT_EQ(after, obs[i] + static_cast<float>(act[i] - 1)) << "walk dynamics at t=" << t;
        EXPECT_EQ(tr.rewards_at(t)[i], after);
        EXPECT_EQ(tr.extras_at(t)[i], static_cast<float>(k * 9 + static_cast<std::size_t>(t)));
      }
    }
  }
}

TEST(RuntimeActorFleet, AnyOrderDeliveryCountsEveryTrajectoryOnce) {
  ActorFleetOptions o;
  o.actors = 3;
  o.envs_per_actor = 2;
  o.steps_per_trajectory = 5;
  o.reset_seed = 1;
  ActorFleet fleet(o, walk_envs(2), [](int) { return std::make_unique<StreamPolicy>(); });
  fleet.start();
  std::map<int, std::uint64_t> next_seq;
  for (int k = 0; k < 60; ++k) {
    auto t = fleet.next_trajectory();
    ASSERT_TRUE(t.has_value());
    EXPECT_EQ(t->sequence, next_seq[t->actor]++) << "per-actor order";
    EXPECT_EQ(t->env_offset, t->actor * 2);
  }
  fleet.stop();
  EXPECT_EQ(fleet.trajectories_taken(), 60u);
}

TEST(RuntimeActorFleet, ActorErrorReachesTheLearnerPromptly) {
  ActorFleetOptions o;
  o.actors = 2;
  o.envs_per_actor = 2;
  o.steps_per_trajectory = 4;
  o.reset_seed = 3;
  ActorFleet fleet(o, walk_envs(2), [](int a) { return std::make_unique<StreamPolicy>(a == 1 ? 10 : -1); });
  fleet.start();
  const auto t0 = std::chrono::steady_clock::now();
  try {
    while (fleet.next_round()) {
    }
    FAIL() << "the actor's error was not reported";
  } catch (const ThreadError& e) {
    EXPECT_EQ(e.thread(), "actor-1");
    EXPECT_NE(std::string(e.what()).find("policy failed on purpose"), std::string::npos);
  }
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s);
  EXPECT_NO_THROW(fleet.stop()) << "reported once";
}

TEST(RuntimeActorFleet, StopWhileActorsWaitOnBackPressure) {
  ActorFleetOptions o;
  o.actors = 2;
  o.envs_per_actor = 1;
  o.steps_per_trajectory = 3;
  o.queue_capacity = 1;
  o.reset_seed = 0;
  ActorFleet fleet(o, walk_envs(1), [](int) { return std::make_unique<StreamPolicy>(); });
  fleet.start();
  ASSERT_TRUE(fleet.next_round());
  // Nobody takes more: the actors block on their credit. stop() must release and join them.
  const auto t0 = std::chrono::steady_clock::now();
  fleet.stop();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s);
  EXPECT_FALSE(fleet.next_round().has_value());
}

TEST(RuntimeActorFleet, SignalInterruptsTheLearnerLoop) {
  SignalStop signals;
  clear_signal_stop();
  ActorFleetOptions o;
  o.actors = 2;
  o.envs_per_actor = 1;
  o.steps_per_trajectory = 3;
  o.reset_seed = 0;
  ActorFleet fleet(o, walk_envs(1), [](int) { return std::make_unique<StreamPolicy>(); });
  fleet.start();
  ASSERT_TRUE(fleet.next_round());
  std::raise(SIGTERM);  // the handler only sets a flag; the learner loop sees it at its next wait
  EXPECT_EQ(stop_signal(), SIGTERM);
  std::optional<Trajectory> r;
  int rounds = 0;
  while ((r = fleet.next_round())) ASSERT_LT(++rounds, 1000);
  EXPECT_TRUE(fleet.interrupted());
  EXPECT_NO_THROW(fleet.stop());
  clear_signal_stop();
}

// A policy that records the nice value of the thread it acts on.
class NiceRecordingPolicy : public StreamPolicy {
 public:
  explicit NiceRecordingPolicy(std::atomic<int>& nice) : nice_(nice) {}
  bool act(const ActBatch& b) override {
    nice_ = current_thread_nice();
    return StreamPolicy::act(b);
  }

 private:
  std::atomic<int>& nice_;
};

TEST(RuntimeActorFleet, ActorThreadsTakeTheirNiceValueAndTheLearnersKeepsItsOwn) {
  const int learner_nice = current_thread_nice();
  for (int increment : {0, 3}) {
    std::atomic<int> seen{-100};
    ActorFleetOptions o;
    o.actors = 1;
    o.envs_per_actor = 2;
    o.steps_per_trajectory = 4;
    o.reset_seed = 100;
    o.actor_nice = increment;
    ActorFleet fleet(o, walk_envs(2), [&](int) { return std::make_unique<NiceRecordingPolicy>(seen); });
    fleet.start();
    ASSERT_TRUE(fleet.next_round().has_value());
    fleet.stop();
    EXPECT_EQ(seen.load(), std::min(19, learner_nice + increment)) << "actor_nice " << increment;
    EXPECT_EQ(current_thread_nice(), learner_nice);
  }
}

TEST(RuntimeActorFleet, BadOptionsAreUserErrors) {
  ActorFleetOptions o;
  o.actors = 0;
  EXPECT_THROW(ActorFleet(o, walk_envs(1), [](int) { return std::make_unique<StreamPolicy>(); }), UserError);
  o.actors = 1;
  o.queue_capacity = 0;
  EXPECT_THROW(ActorFleet(o, walk_envs(1), [](int) { return std::make_unique<StreamPolicy>(); }), UserError);
}

}  // namespace
}  // namespace rlzoo
