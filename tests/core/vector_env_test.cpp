// Vector envs: same-step autoreset keeps the final observation; threads change nothing.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <fmt/format.h>

#include "core/vector/vector_env.h"
#include "core/wrappers/wrappers.h"
#include "tests/core/test_envs.h"

namespace rlzoo {
namespace {

std::vector<std::unique_ptr<Env>> walk_envs(int n, int goal = 2, std::int64_t max_steps = 0) {
  std::vector<std::unique_ptr<Env>> envs;
  for (int i = 0; i < n; ++i) envs.push_back(std::make_unique<test::WalkEnv>(goal, max_steps));
  return envs;
}

// Steps `venv` with `actions` until env 0's episode terminates (at most 10 steps); how many.
int steps_until_env0_terminates(VectorEnv& venv, const std::vector<std::int64_t>& actions) {
  int steps = 0;
  while (!venv.terminated()[0] && steps < 10) {
    venv.step(std::span<const std::int64_t>(actions));
    ++steps;
  }
  EXPECT_TRUE(venv.terminated()[0]);
  return steps;
}

TEST(VectorEnv, SameStepAutoresetKeepsFinalObservation) {
  SyncVectorEnv venv(walk_envs(2, 2));
  venv.reset(0);
  // Walk env 0 right until it terminates at +2; env 1 stays.
  std::vector<std::int64_t> actions{2, 1};
  const int steps = steps_until_env0_terminates(venv, actions);
  EXPECT_EQ(venv.final_observations<float>()[0], 2.0f);      // the true last observation
  EXPECT_EQ(venv.rewards()[0], 2.0);                         // reward of the final step
  EXPECT_EQ(venv.episode_lengths()[0], steps);
  const float first = venv.observations<float>()[0];         // first obs of the next episode
  EXPECT_TRUE(first >= -1 && first <= 1);
  EXPECT_FALSE(venv.terminated()[1]);
  EXPECT_EQ(venv.env(0).elapsed_steps(), 0);
  // The next step continues normally (no extra reset step, unlike next-step autoreset).
  actions[0] = 1;
  venv.step(std::span<const std::int64_t>(actions));
  EXPECT_FALSE(venv.terminated()[0]);
  EXPECT_EQ(venv.env(0).elapsed_steps(), 1);
}

TEST(VectorEnv, NextStepAutoresetResetsOnTheFollowingStepIgnoringItsAction) {
  SyncVectorEnv venv(walk_envs(2, 2));
  venv.set_autoreset_mode(AutoresetMode::next_step);
  venv.reset(0);
  std::vector<std::int64_t> actions{2, 1};
  const int steps = steps_until_env0_terminates(venv, actions);
  // The final observation stays in the observation row; the env is not reset yet.
  EXPECT_EQ(venv.observations<float>()[0], 2.0f);
  EXPECT_EQ(venv.final_observations<float>()[0], 2.0f);
  EXPECT_EQ(venv.rewards()[0], 2.0);
  EXPECT_EQ(venv.episode_lengths()[0], steps);
  EXPECT_EQ(venv.resets_pending()[0], 1);
  EXPECT_EQ(venv.resets_pending()[1], 0);
  EXPECT_THROW(venv.set_autoreset_mode(AutoresetMode::same_step), UserError);  // a reset is pending
  // The next step resets env 0 (its action, 2, ignored) and steps env 1.
  venv.step(std::span<const std::int64_t>(actions));
  EXPECT_EQ(venv.env(0).elapsed_steps(), 0);
  EXPECT_EQ(venv.rewards()[0], 0.0);
  EXPECT_FALSE(venv.terminated()[0] || venv.truncated()[0]);
  const float first = venv.observations<float>()[0];
  EXPECT_TRUE(first >= -1 && first <= 1);
  EXPECT_EQ(venv.resets_pending()[0], 0);
  EXPECT_EQ(venv.env(1).elapsed_steps(), steps + 1);
}

TEST(VectorEnv, TruncationIsReportedWithFinalObservation) {
  SyncVectorEnv venv(walk_envs(3, 100, 4));
  venv.reset(1);
  const float start0 = venv.observations<float>()[0], start1 = venv.observations<float>()[1];
  std::vector<std::int64_t> actions{2, 0, 1};
  for (int t = 0; t < 4; ++t) venv.step(std::span<const std::int64_t>(actions));
  for (int i = 0; i < 3; ++i) {
    EXPECT_TRUE(venv.truncated()[static_cast<std::size_t>(i)]);
    EXPECT_FALSE(venv.terminated()[static_cast<std::size_t>(i)]);
    EXPECT_EQ(venv.episode_lengths()[static_cast<std::size_t>(i)], 4);
  }
  EXPECT_EQ(venv.final_observations<float>()[0], start0 + 4);
  EXPECT_EQ(venv.final_observations<float>()[1], start1 - 4);
}

TEST(VectorEnv, ThreadedMatchesSyncForAnyThreadCount) {
  const int n = 37;
  SyncVectorEnv sync(walk_envs(n, 3));
  ThreadedVectorEnv threaded(walk_envs(n, 3), 3);
  sync.reset(5);
  threaded.reset(5);
  Rng rng(9);
  std::vector<std::int64_t> actions(n);
  for (int t = 0; t < 200; ++t) {
    for (auto& a : actions) a = static_cast<std::int64_t>(rng.below(3));
    sync.step(std::span<const std::int64_t>(actions));
    threaded.step(std::span<const std::int64_t>(actions));
    ASSERT_TRUE(std::equal(sync.observation_bytes().begin(), sync.observation_bytes().end(),
                           threaded.observation_bytes().begin()));
    ASSERT_TRUE(std::ranges::equal(sync.rewards(), threaded.rewards()));
    ASSERT_TRUE(std::ranges::equal(sync.terminated(), threaded.terminated()));
  }
}

// step(actions, after_slice): every env's row is handed to after_slice exactly once, already
// final (it equals the batch after the step), on sync and threaded vector envs alike.
TEST(VectorEnv, AfterSliceSeesEveryRowOnceAndFinal) {
  const int n = 37;
  SyncVectorEnv sync(walk_envs(n, 3));
  ThreadedVectorEnv threaded(walk_envs(n, 3), 3);
  for (VectorEnv* venv : {static_cast<VectorEnv*>(&sync), static_cast<VectorEnv*>(&threaded)}) {
    venv->reset(5);
    Rng rng(9);
    std::vector<std::int64_t> actions(n);
    const std::size_t ob = venv->single_observation_space().byte_size();
    std::vector<std::byte> copied(static_cast<std::size_t>(n) * ob);
    std::vector<double> rewards(n);
    for (int t = 0; t < 50; ++t) {
      for (auto& a : actions) a = static_cast<std::int64_t>(rng.below(3));
      std::vector<std::atomic<int>> calls(n);
      venv->step(std::as_bytes(std::span<const std::int64_t>(actions)), [&](std::int64_t b, std::int64_t e) {
        const auto bu = static_cast<std::size_t>(b), eu = static_cast<std::size_t>(e);
        std::memcpy(copied.data() + bu * ob, venv->observation_bytes().data() + bu * ob, (eu - bu) * ob);
        for (std::size_t i = bu; i < eu; ++i) {
          rewards[i] = venv->rewards()[i];
          calls[i].fetch_add(1);
        }
      });
      for (int i = 0; i < n; ++i) ASSERT_EQ(calls[static_cast<std::size_t>(i)].load(), 1) << "env " << i;
      ASSERT_TRUE(std::ranges::equal(copied, venv->observation_bytes()));
      ASSERT_TRUE(std::ranges::equal(rewards, venv->rewards()));
    }
  }
  // A wrong batch is refused before any env steps or the hook runs.
  std::vector<std::int64_t> short_batch(n - 1, 0);
  bool called = false;
  EXPECT_THROW(threaded.step(std::as_bytes(std::span<const std::int64_t>(short_batch)),
                             [&](std::int64_t, std::int64_t) { called = true; }),
               UserError);
  EXPECT_FALSE(called);
}

// Double buffering: each reset/step writes the other output set, the accessors show the set
// just written, the other still holds the previous call's outputs as they were, and the
// results equal a single-buffered vector env's (same-step and next-step autoreset alike).
TEST(VectorEnv, DoubleBufferingAlternatesSetsAndKeepsThePreviousOutputs) {
  const int n = 23;
  for (const AutoresetMode mode : {AutoresetMode::same_step, AutoresetMode::next_step}) {
    SyncVectorEnv plain(walk_envs(n, 3, 7));
    ThreadedVectorEnv doubled(walk_envs(n, 3, 7), 2);
    plain.set_autoreset_mode(mode);
    doubled.set_autoreset_mode(mode);
    doubled.enable_double_buffering();
    plain.reset(3);
    doubled.reset(3);
    EXPECT_EQ(doubled.current_output_set(), 1);
    Rng rng(4);
    std::vector<std::int64_t> actions(n);
    std::vector<std::byte> previous_obs(plain.observation_bytes().begin(), plain.observation_bytes().end());
    std::vector<double> previous_rewards(plain.rewards().begin(), plain.rewards().end());
    std::vector<std::uint8_t> previous_terminated(plain.terminated().begin(), plain.terminated().end());
    for (int t = 0; t < 60; ++t) {
      for (auto& a : actions) a = static_cast<std::int64_t>(rng.below(3));
      plain.step(std::span<const std::int64_t>(actions));
      doubled.step(std::span<const std::int64_t>(actions));
      const int k = doubled.current_output_set();
      ASSERT_EQ(k, t % 2) << "step " << t;
      const auto& now = doubled.output_set(k);
      const auto& before = doubled.output_set(1 - k);
      ASSERT_EQ(doubled.observation_bytes().data(), now.obs.data());
      ASSERT_TRUE(std::ranges::equal(now.obs, plain.observation_bytes())) << "step " << t;
      ASSERT_TRUE(std::ranges::equal(now.rewards, plain.rewards()));
      ASSERT_TRUE(std::ranges::equal(now.terminated, plain.terminated()));
      ASSERT_TRUE(std::ranges::equal(now.truncated, plain.truncated()));
      ASSERT_TRUE(std::ranges::equal(before.obs, previous_obs)) << "step " << t;
      ASSERT_TRUE(std::ranges::equal(before.rewards, previous_rewards));
      ASSERT_TRUE(std::ranges::equal(before.terminated, previous_terminated));
      previous_obs.assign(plain.observation_bytes().begin(), plain.observation_bytes().end());
      previous_rewards.assign(plain.rewards().begin(), plain.rewards().end());
      previous_terminated.assign(plain.terminated().begin(), plain.terminated().end());
    }
  }
}

TEST(VectorEnv, EnvErrorInAWorkerThreadReachesTheCaller) {
  ThreadedVectorEnv venv(walk_envs(8), 2);
  venv.reset(0);
  std::vector<std::int64_t> actions(8, 1);
  actions[7] = 5;  // env 7 is in the second thread's slice
  try {
    venv.step(std::span<const std::int64_t>(actions));
    FAIL();
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("invalid action 5"));
  }
}

// A WalkEnv that throws from do_step at episode step `at` (a UserError or, with
// `user_error` false, a plain runtime_error as a buggy env would), or from do_reset.
class FailingWalkEnv : public test::WalkEnv {
 public:
  FailingWalkEnv(std::int64_t at, bool user_error, bool in_reset = false)
      : WalkEnv(100), at_(at), user_error_(user_error), in_reset_(in_reset) {}

 protected:
  void do_reset(std::optional<std::uint64_t> seed, Bytes obs) override {
    if (in_reset_) throw std::runtime_error("the simulator did not start");
    steps_ = 0;
    WalkEnv::do_reset(seed, obs);
  }
  StepResult do_step(ConstBytes action, Bytes obs) override {
    if (++steps_ == at_) {
      if (user_error_) throw UserError("boom: the model file went away");
      throw std::runtime_error("boom: index out of range");
    }
    return {0.0, false, false};  // never ends on its own
  }

 private:
  std::int64_t at_;
  bool user_error_, in_reset_;
  std::int64_t steps_ = 0;
};

TEST(VectorEnv, AnEnvThatThrowsIsNamedWithItsStepAndIndex) {
  for (bool user_error : {true, false}) {
    std::vector<std::unique_ptr<Env>> envs = walk_envs(4, 100);
    envs[3] = std::make_unique<FailingWalkEnv>(5, user_error);  // in the second thread's slice
    ThreadedVectorEnv venv(std::move(envs), 2);
    venv.reset(0);
    std::vector<std::int64_t> actions(4, 1);
    std::string message;
    for (int i = 0; i < 4; ++i) venv.step(std::span<const std::int64_t>(actions));
    try {
      venv.step(std::span<const std::int64_t>(actions));
    } catch (const EnvError& e) {
      EXPECT_TRUE(user_error) << "a plain runtime_error must not become a UserError";
      message = e.what();
    } catch (const EnvFailure& e) {
      EXPECT_FALSE(user_error);
      message = e.what();
    }
    EXPECT_THAT(message, ::testing::AllOf(::testing::HasSubstr("env Walk-v0, episode step 5: boom"),
                                          ::testing::HasSubstr("vector env index 3 of 4")))
        << message;
  }
}

// Double buffered, a step that throws leaves the last complete step's set current and as it
// was (a caller may hold it), and the next step writes the other set again.
TEST(VectorEnv, AStepThatThrowsLeavesTheLastCompleteOutputSetCurrent) {
  std::vector<std::unique_ptr<Env>> envs = walk_envs(4, 100);
  envs[3] = std::make_unique<FailingWalkEnv>(5, true);  // in the second thread's slice
  ThreadedVectorEnv venv(std::move(envs), 2);
  venv.enable_double_buffering();
  venv.reset(0);
  std::vector<std::int64_t> actions(4, 2);  // every walk moves: each step changes rows 0-2
  for (int i = 0; i < 4; ++i) venv.step(std::span<const std::int64_t>(actions));
  const int k = venv.current_output_set();
  const std::vector<std::byte> obs(venv.observation_bytes().begin(), venv.observation_bytes().end());
  const std::vector<double> rewards(venv.rewards().begin(), venv.rewards().end());
  EXPECT_THROW(venv.step(std::span<const std::int64_t>(actions)), EnvError);
  EXPECT_EQ(venv.current_output_set(), k);
  EXPECT_TRUE(std::ranges::equal(venv.observation_bytes(), obs));
  EXPECT_TRUE(std::ranges::equal(venv.rewards(), rewards));
}

// A walk that writes Inf into its observation at episode step `at` (and ends there when `ends`).
class NonFiniteWalkEnv : public test::WalkEnv {
 public:
  NonFiniteWalkEnv(std::int64_t at, bool ends) : WalkEnv(100), at_(at), ends_(ends) {}

 protected:
  void do_reset(std::optional<std::uint64_t> seed, Bytes obs) override {
    steps_ = 0;
    WalkEnv::do_reset(seed, obs);
  }
  StepResult do_step(ConstBytes action, Bytes obs) override {
    StepResult r = WalkEnv::do_step(action, obs);
    if (++steps_ == at_) {
      as_span<float>(obs)[0] = std::numeric_limits<float>::infinity();
      r.terminated = ends_;
    }
    return r;
  }

 private:
  std::int64_t at_;
  bool ends_;
  std::int64_t steps_ = 0;
};

// The vector env checks its batch of observations in one pass after stepping (and a final
// observation before the reset overwrites it): a NaN or Inf is still named with the env, its
// episode step, the element and the vector index, whichever thread stepped it.
TEST(VectorEnv, ANonFiniteObservationIsNamedWithItsStepAndIndex) {
  for (int threads : {0, 2}) {
    for (bool ends : {false, true}) {
      std::vector<std::unique_ptr<Env>> envs = walk_envs(4, 100);
      envs[2] = std::make_unique<NonFiniteWalkEnv>(3, ends);
      std::unique_ptr<VectorEnv> venv;
      if (threads == 0) venv = std::make_unique<SyncVectorEnv>(std::move(envs));
      else venv = std::make_unique<ThreadedVectorEnv>(std::move(envs), threads);
      venv->reset(0);
      std::vector<std::int64_t> actions(4, 1);
      venv->step(std::span<const std::int64_t>(actions));
      venv->step(std::span<const std::int64_t>(actions));
      std::string message;
      try {
        venv->step(std::span<const std::int64_t>(actions));
      } catch (const EnvError& e) {
        message = e.what();
      }
      EXPECT_THAT(message, ::testing::AllOf(
                               ::testing::HasSubstr("env Walk-v0, episode step 3: observation element 0 is not finite"),
                               ::testing::HasSubstr("vector env index 2 of 4")))
          << "threads " << threads << ", ends " << ends << ": " << message;
    }
  }
}

TEST(VectorEnv, AnEnvThatThrowsInResetOrThroughAWrapperIsNamedOnce) {
  std::vector<std::unique_ptr<Env>> envs;
  envs.push_back(std::make_unique<FailingWalkEnv>(1, false, /*in_reset=*/true));
  SyncVectorEnv venv(std::move(envs));
  try {
    venv.reset(0);
    FAIL() << "no error";
  } catch (const EnvFailure& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("env Walk-v0, reset: the simulator did not start"));
  }
  // Through a wrapper: the inner env's error passes through, named once.
  TimeLimit wrapped(std::make_unique<FailingWalkEnv>(2, true), 10);
  std::array<std::byte, 4> obs{};
  wrapped.reset(1, obs);
  wrapped.step(1, obs);
  try {
    wrapped.step(1, obs);
    FAIL() << "no error";
  } catch (const EnvError& e) {
    EXPECT_EQ(std::string(e.what()), "env Walk-v0, episode step 2: boom: the model file went away");
  }
}

TEST(VectorEnv, WrongActionBatchSizeAndMixedSpacesAreErrors) {
  SyncVectorEnv venv(walk_envs(4));
  venv.reset(0);
  std::vector<std::int64_t> actions(3, 1);
  EXPECT_THROW(venv.step(std::span<const std::int64_t>(actions)), UserError);
  std::vector<std::unique_ptr<Env>> mixed;
  mixed.push_back(std::make_unique<test::WalkEnv>(2));
  mixed.push_back(std::make_unique<test::WalkEnv>(3));
  EXPECT_THROW(SyncVectorEnv(std::move(mixed)), UserError);
}

// An action no env may take is an error naming the env, the action and the vector index,
// whichever thread or run of envs (Env::step_run) holds it; strict bounds are enforced in a
// vector env as in a single one.
TEST(VectorEnv, AnUnacceptableActionIsNamedWithItsIndex) {
  const auto message_of = [](VectorEnv& venv, ConstBytes actions) {
    try {
      venv.step(actions);
    } catch (const EnvError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  for (int threads : {0, 2}) {
    std::unique_ptr<VectorEnv> venv;
    if (threads == 0) venv = std::make_unique<SyncVectorEnv>(walk_envs(40, 100));
    else venv = std::make_unique<ThreadedVectorEnv>(walk_envs(40, 100), threads);
    venv->reset(0);
    std::vector<std::int64_t> actions(40, 1);
    venv->step(std::span<const std::int64_t>(actions));  // 1 stays where it is
    const float before = venv->observations<float>()[7];
    actions[7] = 2;
    venv->step(std::span<const std::int64_t>(actions));
    EXPECT_EQ(venv->observations<float>()[7], before + 1.0f);  // 2 moves one to the right
    for (std::int64_t bad : {3, -1}) {
      actions[37] = bad;
      EXPECT_THAT(message_of(*venv, std::as_bytes(std::span<const std::int64_t>(actions))),
                  ::testing::AllOf(::testing::HasSubstr(fmt::format("invalid action {} for action space Discrete(3)", bad)),
                                   ::testing::HasSubstr("vector env index 37 of 40")))
          << "threads " << threads;
    }
  }
  // A float32 Box: a NaN or an Inf is named; outside the bounds is taken unless in strict mode.
  std::vector<std::unique_ptr<Env>> envs;
  for (int i = 0; i < 3; ++i) envs.push_back(std::make_unique<test::EchoEnv>());
  envs[2]->set_strict_actions(true);
  SyncVectorEnv echo(std::move(envs));
  echo.reset(0);
  std::vector<float> box(6, 0.5f);
  box[0] = 3.0f;  // env 0 is not strict
  echo.step(std::as_bytes(std::span<const float>(box)));
  EXPECT_EQ(echo.observations<float>()[0], 3.0f);
  for (float bad : {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()}) {
    box[3] = bad;
    EXPECT_THAT(message_of(echo, std::as_bytes(std::span<const float>(box))),
                ::testing::AllOf(::testing::HasSubstr("element 1 is not finite"),
                                 ::testing::HasSubstr("vector env index 1 of 3")));
  }
  box[3] = 0.5f;
  box[4] = 3.0f;
  EXPECT_THAT(message_of(echo, std::as_bytes(std::span<const float>(box))),
              ::testing::AllOf(::testing::HasSubstr("outside the bounds (strict mode)"),
                               ::testing::HasSubstr("vector env index 2 of 3")));
}

TEST(VectorEnv, ActionMasksAreBatched) {
  std::vector<std::unique_ptr<Env>> envs;
  for (int i = 0; i < 2; ++i) envs.push_back(std::make_unique<test::MaskedEnv>());
  SyncVectorEnv venv(std::move(envs));
  venv.reset(0);
  ASSERT_EQ(venv.action_masks().size(), 8u);
  std::vector<std::int64_t> actions{0, 3};
  venv.step(std::span<const std::int64_t>(actions));
  EXPECT_EQ(venv.action_masks()[0], 0);
  EXPECT_EQ(venv.action_masks()[4], 0);
  EXPECT_EQ(venv.action_masks()[5], 1);
}

TEST(WorkerPool, RunsEveryIndexOnceAndPropagatesErrors) {
  WorkerPool pool(3);
  std::vector<std::atomic<int>> hits(3);
  for (int rep = 0; rep < 100; ++rep) pool.run([&](int k) { hits[static_cast<std::size_t>(k)]++; });
  for (auto& h : hits) EXPECT_EQ(h.load(), 100);
  EXPECT_THROW(pool.run([](int k) {
    if (k == 2) throw UserError("boom");
  }),
               UserError);
  pool.run([&](int k) { hits[static_cast<std::size_t>(k)]++; });  // still usable after an error
  EXPECT_EQ(hits[2].load(), 101);
  EXPECT_THROW(WorkerPool(0), UserError);
}

}  // namespace
}  // namespace rlzoo
