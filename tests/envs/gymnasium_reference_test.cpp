// Replays the Gymnasium reference trajectories (shared/data/gymnasium/classic_control, see its
// README) through our classic-control envs: every step one at a time from the recorded state,
// and every case sequentially up to platform_stable_steps.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "core/registry/env_registry.h"
#include "envs/builtin.h"
#include "tests/support/test_paths.h"

namespace rlzoo {
namespace {

using nlohmann::json;

constexpr double kObsTol = 1e-5;
constexpr double kRewardTol = 1e-6;
constexpr double kStateTol = 1e-6;
constexpr int kMaxReportedMismatches = 10;

struct Deviation {
  std::int64_t steps = 0;
  std::int64_t exact_steps = 0;  // obs, reward and state all bit-identical
  double obs = 0.0, reward = 0.0, state = 0.0;
};

class Replayer {
 public:
  explicit Replayer(const std::string& id) : env_(make_env(id)), access_(dynamic_cast<StateAccess*>(env_.get())) {
    obs_.resize(env_->observation_space().numel());
    action_.resize(env_->action_space().byte_size());
  }

  bool ok() const { return access_ != nullptr; }
  Env& env() { return *env_; }

  void reset(std::uint64_t seed, const json& state) {
    env_->reset(seed, obs_bytes());
    access_->set_state(state.get<std::vector<double>>(), obs_bytes());
  }

  StepResult step(const json& action) {
    if (env_->action_space().is_discrete()) {
      const auto a = action.get<std::int64_t>();
      std::memcpy(action_.data(), &a, sizeof a);
    } else {
      const auto a = static_cast<float>(action.get<double>());  // recorded float32 values: exact
      std::memcpy(action_.data(), &a, sizeof a);
    }
    return env_->step(ConstBytes(action_), obs_bytes());
  }

  double obs_diff(const json& expected) const {
    double d = 0.0;
    for (std::size_t i = 0; i < obs_.size(); ++i) d = std::max(d, std::abs(obs_[i] - expected[i].get<double>()));
    return d;
  }
  double state_diff(const json& expected) const {
    const auto s = access_->get_state();
    double d = 0.0;
    for (std::size_t i = 0; i < s.size(); ++i) d = std::max(d, std::abs(s[i] - expected[i].get<double>()));
    return d;
  }

 private:
  Bytes obs_bytes() { return std::as_writable_bytes(std::span<float>(obs_)); }

  std::unique_ptr<Env> env_;
  StateAccess* access_;
  std::vector<float> obs_;
  std::vector<std::byte> action_;
};

class GymnasiumReference : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { register_builtin_envs(); }

  // Records a mismatch (the first few in full) and returns false.
  bool mismatch(const std::string& msg) {
    if (++mismatches_ <= kMaxReportedMismatches) ADD_FAILURE() << msg;
    return false;
  }

  int mismatches_ = 0;
};

std::vector<json> load_cases(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::vector<json> cases;
  std::string line;
  int line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.empty()) continue;
    try {
      cases.push_back(json::parse(line));
    } catch (const json::exception& e) {
      throw std::runtime_error(fmt::format("{}:{}: {}", path, line_no, e.what()));
    }
  }
  return cases;
}

TEST_P(GymnasiumReference, MatchesRecordedTrajectories) {
  const std::string id = GetParam();
  const auto shared = test::shared_dir();
  if (!shared) GTEST_SKIP() << "shared reference data not found (../shared beside the checkout or $RLZOO_SHARED_DIR)";
  const std::string dir = *shared + "/data/gymnasium/classic_control";
  const std::string path = dir + "/" + id + ".jsonl";
  ASSERT_TRUE(std::filesystem::is_regular_file(path)) << "missing reference file " << path;
  std::vector<json> cases;
  ASSERT_NO_THROW(cases = load_cases(path));
  ASSERT_FALSE(cases.empty()) << path << " holds no cases";

  Replayer rp(id);
  ASSERT_TRUE(rp.ok()) << id << " does not implement StateAccess";
  Deviation one_step, sequential, beyond;

  for (const json& c : cases) {
    const int case_no = c.at("case").get<int>();
    const auto seed = c.at("seed").get<std::uint64_t>();
    const json& actions = c.at("actions");
    const json& obs = c.at("obs");
    const json& rewards = c.at("rewards");
    const json& terminated = c.at("terminated");
    const json& truncated = c.at("truncated");
    const json& states = c.at("state");
    const auto n = obs.size();
    const auto stable = c.at("platform_stable_steps").get<std::size_t>();
    ASSERT_TRUE(actions.size() >= n && rewards.size() == n && states.size() == n && stable <= n)
        << id << " case " << case_no << ": inconsistent record";
    auto where = [&](std::size_t t, const char* mode) {
      return fmt::format("{} case {} ({}) step {} [{}]", id, case_no, c.at("kind").get<std::string>(), t, mode);
    };

    // (a) One step from each recorded state. The time limit cannot show here: only terminated.
    for (std::size_t t = 0; t < n; ++t) {
      rp.reset(seed, t == 0 ? c.at("initial_state") : states[t - 1]);
      const StepResult r = rp.step(actions[t]);
      const double dobs = rp.obs_diff(obs[t]);
      const double drew = std::abs(r.reward - rewards[t].get<double>());
      const double dstate = rp.state_diff(states[t]);
      one_step.steps++;
      one_step.exact_steps += dobs == 0 && drew == 0 && dstate == 0;
      one_step.obs = std::max(one_step.obs, dobs);
      one_step.reward = std::max(one_step.reward, drew);
      one_step.state = std::max(one_step.state, dstate);
      if (dobs > kObsTol || drew > kRewardTol || dstate > kStateTol || r.terminated != terminated[t].get<bool>())
        mismatch(fmt::format("{}: |dobs| {:.3g}, |dreward| {:.3g}, |dstate| {:.3g}, terminated {} (expected {})",
                             where(t, "one step"), dobs, drew, dstate, r.terminated, terminated[t].get<bool>()));
    }

    // (b) Sequential replay from the initial state, compared up to platform_stable_steps; the
    // rest is stepped too, for the record of how far bit-exactness reaches.
    rp.reset(seed, c.at("initial_state"));
    const double dinit = rp.obs_diff(c.at("initial_obs"));
    sequential.obs = std::max(sequential.obs, dinit);
    if (dinit > kObsTol)
      mismatch(fmt::format("{}: initial observation differs by {:.3g}", where(0, "set_state"), dinit));
    for (std::size_t t = 0; t < n; ++t) {
      const StepResult r = rp.step(actions[t]);
      const double dobs = rp.obs_diff(obs[t]);
      const double drew = std::abs(r.reward - rewards[t].get<double>());
      const double dstate = rp.state_diff(states[t]);
      Deviation& d = t < stable ? sequential : beyond;
      d.steps++;
      d.exact_steps += dobs == 0 && drew == 0 && dstate == 0;
      d.obs = std::max(d.obs, dobs);
      d.reward = std::max(d.reward, drew);
      d.state = std::max(d.state, dstate);
      const bool flags_ok = r.terminated == terminated[t].get<bool>() && r.truncated == truncated[t].get<bool>();
      if (t < stable && (dobs > kObsTol || drew > kRewardTol || dstate > kStateTol || !flags_ok))
        mismatch(
            fmt::format("{}: |dobs| {:.3g}, |dreward| {:.3g}, |dstate| {:.3g}, terminated {} truncated {} "
                        "(expected {} {})",
                        where(t, "sequential"), dobs, drew, dstate, r.terminated, r.truncated,
                        terminated[t].get<bool>(), truncated[t].get<bool>()));
      if (r.done()) {
        if (t + 1 != n && stable == n) mismatch(where(t, "sequential") + ": the episode ended early");
        break;
      }
    }
    // The episode length must match where the whole case is platform-stable.
    if (stable == n) {
      const bool ref_done = terminated[n - 1].get<bool>() || truncated[n - 1].get<bool>();
      if (rp.env().needs_reset() != ref_done)
        mismatch(fmt::format("{} case {}: after {} steps needs_reset() is {}, the reference episode {}", id, case_no, n,
                             rp.env().needs_reset(), ref_done ? "ended" : "goes on"));
    }
  }

  if (mismatches_ > kMaxReportedMismatches)
    ADD_FAILURE() << mismatches_ - kMaxReportedMismatches << " more mismatches in " << id;
  const std::string report = fmt::format(
      "[{}] {} cases. one-step: {} steps ({} bit-exact), max |dobs| {:.3g}, |dreward| {:.3g}, |dstate| {:.3g}. "
      "sequential (platform-stable): {} steps ({} bit-exact), max |dobs| {:.3g}, |dreward| {:.3g}, |dstate| {:.3g}. "
      "beyond platform_stable_steps (not asserted): {} steps ({} bit-exact), max |dobs| {:.3g}",
      id, cases.size(), one_step.steps, one_step.exact_steps, one_step.obs, one_step.reward, one_step.state,
      sequential.steps, sequential.exact_steps, sequential.obs, sequential.reward, sequential.state, beyond.steps,
      beyond.exact_steps, beyond.obs);
  std::cout << report << "\n";
  RecordProperty("cases", static_cast<int>(cases.size()));
  RecordProperty("one_step_steps", static_cast<int>(one_step.steps));
  RecordProperty("sequential_steps", static_cast<int>(sequential.steps));
  RecordProperty("max_obs_deviation", fmt::format("{:.3g}", std::max(one_step.obs, sequential.obs)));
  RecordProperty("max_reward_deviation", fmt::format("{:.3g}", std::max(one_step.reward, sequential.reward)));
}

INSTANTIATE_TEST_SUITE_P(ClassicControl, GymnasiumReference,
                         ::testing::Values("CartPole-v1", "Acrobot-v1", "MountainCar-v0", "MountainCarContinuous-v0",
                                           "Pendulum-v1"),
                         [](const auto& info) {
                           std::string name = info.param;
                           std::replace_if(
                               name.begin(), name.end(), [](char ch) { return !std::isalnum(ch); }, '_');
                           return name;
                         });

}  // namespace
}  // namespace rlzoo
