// The conformance helper itself: a well-behaved toy env passes, and each kind of broken env is
// caught with a message that says what is wrong.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "core/env/conformance.h"

namespace rlzoo {
namespace {

enum class Bug {
  None,
  NaNObservation,
  OutOfBoundsObservation,
  PartialObservation,
  NeverEnds,
  IgnoresSeed,
  Nondeterministic,
  NoLegalAction,
  InfiniteReward,
  StateLeaksAcrossResets,
  NoSavedState,        // saving its state throws UserError, as for envs without StateAccess
  LoadShiftsPosition,  // load_state restores the position one cell off
};

// A random walk on 0..10 that starts at a seeded random position and ends (terminated) at
// either edge. Observation [position, position / 10]; actions 0 (left) and 1 (right), plus an
// always illegal action 2 when masked. Each step also slips one extra cell with probability
// 1/4, so the env's Rng matters after reset too.
class ToyWalk final : public Env {
 public:
  explicit ToyWalk(Bug bug = Bug::None, bool masked = false) : Env(make_spec(masked)), bug_(bug) {}

  static EnvSpec make_spec(bool masked) {
    EnvSpec s;
    s.id = "ToyWalk";
    s.observation_space = Space::box({0.0, 0.0}, {10.0, 1.0}, {2});
    s.action_space = Space::discrete(masked ? 3 : 2);
    s.has_action_mask = masked;
    return s;
  }

 protected:
  void do_reset(std::optional<std::uint64_t>, Bytes obs) override {
    pos_ = bug_ == Bug::IgnoresSeed ? 5 : 3 + static_cast<int>(rng().below(5));
    // The leak: from the third reset on, the start is one cell further right.
    if (bug_ == Bug::StateLeaksAcrossResets && resets_ >= 2) pos_ += 1;
    ++resets_;
    steps_ = 0;
    refresh_mask();
    write(obs);
  }

  StepResult do_step(ConstBytes action, Bytes obs) override {
    const auto a = as_span<std::int64_t>(action)[0];
    pos_ += a == 1 ? 1 : -1;
    if (bug_ != Bug::IgnoresSeed && rng().below(4) == 0) pos_ += a == 1 ? 1 : -1;
    if (bug_ == Bug::NeverEnds) pos_ = std::clamp(pos_, 1, 9);
    pos_ = std::clamp(pos_, 0, 10);
    ++steps_;
    refresh_mask();
    write(obs);
    StepResult r;
    r.terminated = pos_ == 0 || pos_ == 10;
    r.reward = bug_ == Bug::InfiniteReward && steps_ == 2 ? std::numeric_limits<double>::infinity() : 1.0;
    return r;
  }

  nlohmann::json do_save_state() const override {
    if (bug_ == Bug::NoSavedState) return Env::do_save_state();  // throws: "cannot save its state"
    return {{"pos", pos_}, {"steps", steps_}, {"resets", resets_}};
  }
  void do_load_state(const nlohmann::json& state, Bytes obs) override {
    pos_ = state.at("pos").get<int>();
    if (bug_ == Bug::LoadShiftsPosition) pos_ = pos_ < 10 ? pos_ + 1 : pos_ - 1;
    steps_ = state.at("steps").get<std::int64_t>();
    resets_ = state.at("resets").get<int>();
    refresh_mask();
    write(obs);
  }

 private:
  void refresh_mask() {
    auto mask = mutable_action_mask();
    if (mask.empty()) return;
    mask[0] = mask[1] = bug_ == Bug::NoLegalAction && steps_ >= 1 ? 0 : 1;
    mask[2] = 0;
  }

  void write(Bytes obs) {
    static int global_counter = 0;
    auto o = as_span<float>(obs);
    o[0] = static_cast<float>(pos_);
    if (bug_ != Bug::PartialObservation) o[1] = static_cast<float>(pos_) / 10.0f;
    if (bug_ == Bug::NaNObservation && steps_ == 3) o[1] = std::numeric_limits<float>::quiet_NaN();
    if (bug_ == Bug::OutOfBoundsObservation && steps_ == 2) o[0] = 11.0f;
    if (bug_ == Bug::Nondeterministic) o[1] = static_cast<float>(++global_counter % 7) / 10.0f;
  }

  Bug bug_;
  int pos_ = 5;
  int resets_ = 0;
  std::int64_t steps_ = 0;
};

ConformanceReport check(Bug bug, bool masked = false, ConformanceOptions opts = {}) {
  return check_env_conformance([=] { return std::make_unique<ToyWalk>(bug, masked); }, opts);
}

void expect_failure(const ConformanceReport& r, const std::string& phrase) {
  EXPECT_FALSE(r.ok()) << "expected a failure mentioning '" << phrase << "'";
  EXPECT_NE(r.summary().find(phrase), std::string::npos) << r.summary();
}

TEST(Conformance, WellBehavedEnvPasses) {
  const auto r = check(Bug::None);
  EXPECT_TRUE(r.ok()) << r.summary();
  EXPECT_EQ(r.env_id, "ToyWalk");
  EXPECT_EQ(r.episodes, 3 * 2 * 3);  // seeds x episodes x (two fresh runs + one reused)
  EXPECT_GT(r.steps, r.episodes);
}

TEST(Conformance, SavedStatesContinueIdenticallyAfterALoad) {
  const auto r = check(Bug::None);
  EXPECT_EQ(r.state_round_trip.rfind("passed", 0), 0u) << r.state_round_trip;
  EXPECT_NE(r.summary().find("state round trip: passed"), std::string::npos) << r.summary();
  expect_failure(check(Bug::LoadShiftsPosition), "after load_state the observation differs");
  const auto skipped = check(Bug::NoSavedState);
  EXPECT_TRUE(skipped.ok()) << skipped.summary();
  EXPECT_NE(skipped.state_round_trip.find("skipped: env ToyWalk cannot save its state"), std::string::npos)
      << skipped.state_round_trip;
}

TEST(Conformance, MaskedEnvPassesWhenOnlyLegalActionsAreSampled) {
  const auto r = check(Bug::None, /*masked=*/true);
  EXPECT_TRUE(r.ok()) << r.summary();
}

TEST(Conformance, CatchesNonFiniteObservation) { expect_failure(check(Bug::NaNObservation), "is not finite"); }

TEST(Conformance, CatchesObservationOutsideTheSpace) {
  expect_failure(check(Bug::OutOfBoundsObservation), "observation is outside Box");
}

TEST(Conformance, CatchesUnwrittenObservationBytes) {
  expect_failure(check(Bug::PartialObservation), "does not write the whole observation");
}

TEST(Conformance, CatchesEpisodesThatNeverEnd) {
  ConformanceOptions opts;
  opts.max_steps_per_episode = 100;
  expect_failure(check(Bug::NeverEnds, false, opts), "did not end (terminated or truncated) within 100 steps");
}

TEST(Conformance, TimeLimitIsTheDefaultBudget) {
  const auto r = check_env_conformance([] {
    auto env = std::make_unique<ToyWalk>(Bug::NeverEnds);
    env->set_max_episode_steps(50);
    return env;
  });
  EXPECT_TRUE(r.ok()) << r.summary();
}

TEST(Conformance, CatchesAnEnvThatIgnoresItsSeed) {
  expect_failure(check(Bug::IgnoresSeed), "gave identical trajectories");
  ConformanceOptions opts;
  opts.expect_seed_dependence = false;
  const auto r = check(Bug::IgnoresSeed, false, opts);
  EXPECT_TRUE(r.ok()) << r.summary();
}

TEST(Conformance, CatchesNondeterminism) {
  expect_failure(check(Bug::Nondeterministic), "run 2 (a fresh env with the same seed) differs");
}

TEST(Conformance, CatchesStateLeakingAcrossResets) {
  expect_failure(check(Bug::StateLeaksAcrossResets), "run 3 (the same env after reset(seed)) differs");
}

TEST(Conformance, CatchesAMaskWithoutLegalActions) {
  expect_failure(check(Bug::NoLegalAction, /*masked=*/true), "no legal action");
}

TEST(Conformance, CatchesNonFiniteReward) { expect_failure(check(Bug::InfiniteReward), "reward inf is not finite"); }

TEST(Conformance, ReportsFactoryErrors) {
  const auto r = check_env_conformance([]() -> std::unique_ptr<Env> { throw UserError("no such env"); });
  expect_failure(r, "creating the env threw: no such env");
  const auto none = check_env_conformance([]() -> std::unique_ptr<Env> { return nullptr; });
  expect_failure(none, "returned null");
}

TEST(Conformance, ListsEachKindOfFailureOnce) {
  const auto r = check(Bug::OutOfBoundsObservation);
  EXPECT_EQ(r.failures.size(), 1u) << r.summary();
  EXPECT_GT(r.repeated_failures, 0) << r.summary();
}

TEST(Conformance, StopsAtMaxFailures) {
  ConformanceOptions opts;
  opts.max_failures = 1;
  const auto r = check(Bug::PartialObservation, false, opts);
  EXPECT_EQ(r.failures.size(), 1u) << r.summary();
}

}  // namespace
}  // namespace rlzoo
