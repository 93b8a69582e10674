#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fmt/format.h>
#include <limits>

#include "core/config/context.h"
#include "core/env/conformance.h"
#include "core/registry/env_registry.h"
#include "core/vector/vector_env.h"
#include "core/wrappers/wrappers.h"
#include "envs/classic_control/cartpole.h"
#include "tests/envs/env_test_util.h"

namespace rlzoo {
namespace {

using test::EnvHarness;
using test::f32;

constexpr double kThetaThreshold = 0.20943951023931953;  // 12 degrees, Gymnasium's value
constexpr double kInf = std::numeric_limits<double>::infinity();

// One explicit-Euler step written out from the equations (x * x for squares; the env uses
// libm pow like Gymnasium, which can differ in the last bit).
std::vector<double> euler_step(const std::vector<double>& s, double force) {
  const double g = 9.8, mp = 0.1, total = 1.1, l = 0.5, tau = 0.02;
  const double c = std::cos(s[2]), sn = std::sin(s[2]);
  const double temp = (force + mp * l * s[3] * s[3] * sn) / total;
  const double thetaacc = (g * sn - c * temp) / (l * (4.0 / 3.0 - mp * c * c / total));
  const double xacc = temp - mp * l * thetaacc * c / total;
  return {s[0] + tau * s[1], s[1] + tau * xacc, s[2] + tau * s[3], s[3] + tau * thetaacc};
}

void expect_state_near(const std::vector<double>& got, const std::vector<double>& want, double tol = 1e-14) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "state[" << i << "]";
}

TEST(CartPole, SpacesAndRegistration) {
  EnvHarness h("CartPole-v1");
  const Space& os = h.env().observation_space();
  ASSERT_TRUE(os.is_box());
  EXPECT_EQ(os.dtype(), DType::Float32);
  EXPECT_EQ(os.shape(), Shape({4}));
  const double fmax = std::numeric_limits<float>::max();
  EXPECT_EQ(os.high(), (std::vector<double>{4.800000190734863, fmax, 0.41887903213500977, fmax}));
  EXPECT_EQ(os.low(), (std::vector<double>{-4.800000190734863, -fmax, -0.41887903213500977, -fmax}));
  EXPECT_EQ(h.env().action_space(), Space::discrete(2));
  EXPECT_EQ(h.env().max_episode_steps(), 500);
  EXPECT_EQ(h.env().spec().reward_threshold, 475.0);
}

TEST(CartPole, OneStepFollowsTheEquations) {
  EnvHarness h("CartPole-v1");
  const std::vector<double> s{0.1, -0.2, 0.05, 0.3};
  for (const std::int64_t action : {0, 1}) {
    const StepResult r = h.step_from(s, action);
    const auto want = euler_step(s, action == 1 ? 10.0 : -10.0);
    expect_state_near(h.state(), want);
    test::expect_obs(h.obs(), h.state());
    EXPECT_EQ(r.reward, 1.0);
    EXPECT_FALSE(r.terminated);
    EXPECT_FALSE(r.truncated);
  }
}

TEST(CartPole, ResetDrawsFromTheSeededRange) {
  EnvHarness h("CartPole-v1");
  h.reset(7);
  const auto first = h.state();
  for (double v : first) {
    EXPECT_GE(v, -0.05);
    EXPECT_LT(v, 0.05);
  }
  test::expect_obs(h.obs(), first);
  h.reset(7);
  EXPECT_EQ(h.state(), first);
  h.reset(8);
  EXPECT_NE(h.state(), first);
}

// With zero velocities a step leaves x and theta where they are, so the thresholds can be hit
// exactly: the tests are strict inequalities.
TEST(CartPole, TerminationThresholds) {
  EnvHarness h("CartPole-v1");
  struct Case {
    std::vector<double> state;
    bool terminated;
  };
  const Case cases[] = {
      {{2.4, 0, 0, 0}, false},
      {{std::nextafter(2.4, kInf), 0, 0, 0}, true},
      {{-2.4, 0, 0, 0}, false},
      {{std::nextafter(-2.4, -kInf), 0, 0, 0}, true},
      {{0, 0, kThetaThreshold, 0}, false},
      {{0, 0, std::nextafter(kThetaThreshold, kInf), 0}, true},
      {{0, 0, -kThetaThreshold, 0}, false},
      {{0, 0, std::nextafter(-kThetaThreshold, -kInf), 0}, true},
      // Moving across the line during the step.
      {{2.39, 1.0, 0, 0}, true},
      {{2.39, 0.49, 0, 0}, false},
  };
  for (const Case& c : cases) {
    h.reset();
    const StepResult r = h.step_from(c.state, std::int64_t{1});
    EXPECT_EQ(r.terminated, c.terminated) << "x " << c.state[0] << " theta " << c.state[2];
    EXPECT_EQ(r.reward, 1.0) << "the terminating step is rewarded too";
    EXPECT_EQ(h.state()[0], c.state[0] + 0.02 * c.state[1]);
  }
}

TEST(CartPole, SuttonBartoReward) {
  EnvHarness h("CartPole-v1", "{sutton_barto_reward: true}");
  EXPECT_EQ(h.step_from({0, 0, 0, 0}, 1).reward, 0.0);
  const StepResult r = h.step_from({2.4, 1.0, 0, 0}, 1);
  EXPECT_TRUE(r.terminated);
  EXPECT_EQ(r.reward, -1.0);
  // The flag changes the reward only.
  EnvHarness plain("CartPole-v1");
  h.reset();
  h.step_from({0.1, -0.2, 0.05, 0.3}, 0);
  plain.step_from({0.1, -0.2, 0.05, 0.3}, 0);
  EXPECT_EQ(h.state(), plain.state());
}

TEST(CartPole, TruncatedExactlyAtTheTimeLimit) {
  EnvHarness h("CartPole-v1");
  for (int t = 1; t < 500; ++t) {
    const StepResult r = h.step_from({0, 0, 0, 0}, t % 2);
    ASSERT_FALSE(r.done()) << "step " << t;
  }
  const StepResult r = h.step_from({0, 0, 0, 0}, 1);
  EXPECT_TRUE(r.truncated);
  EXPECT_FALSE(r.terminated);
  EXPECT_EQ(h.env().info().episode_length, 500);
  EXPECT_EQ(h.env().info().episode_return, 500.0);
  EXPECT_THROW(h.step(1), UserError);
}

TEST(CartPole, TerminatedAndTruncatedOnTheSameStep) {
  EnvHarness h("CartPole-v1");
  for (int t = 1; t < 500; ++t) ASSERT_FALSE(h.step_from({0, 0, 0, 0}, 0).done());
  const StepResult r = h.step_from({2.4, 1.0, 0, 0}, 1);
  EXPECT_TRUE(r.terminated);
  EXPECT_TRUE(r.truncated);
}

TEST(CartPole, InvalidActionNamesEnvAndAction) {
  EnvHarness h("CartPole-v1");
  for (const std::int64_t bad : {2, -1}) {
    try {
      h.step(bad);
      FAIL() << "action " << bad << " was accepted";
    } catch (const UserError& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find("CartPole-v1"), std::string::npos) << msg;
      EXPECT_NE(msg.find("invalid action " + std::to_string(bad)), std::string::npos) << msg;
      EXPECT_NE(msg.find("Discrete(2)"), std::string::npos) << msg;
    }
  }
}

TEST(CartPole, KwargErrorsNameTheKey) {
  try {
    EnvHarness h("CartPole-v1", "{sutton_barto: true}");
    FAIL() << "unknown key accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("sutton_barto"), std::string::npos) << e.what();
  }
  try {
    EnvHarness h("CartPole-v1", "{sutton_barto_reward: 3}");
    FAIL() << "a number accepted as bool";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("sutton_barto_reward"), std::string::npos) << e.what();
  }
}

TEST(CartPole, SetStateChecksTheSize) {
  EnvHarness h("CartPole-v1");
  EXPECT_THROW(h.set_state({0, 0, 0}), UserError);
}

// CartPole checks its observation in registers as it writes it (StepResult::checked_finite),
// so Env::step does not read it back; a state set from outside can still make it NaN or
// overflow float32, and then Env::step's own check names the element.
TEST(CartPole, ANonFiniteObservationIsStillNamed) {
  EnvHarness h("CartPole-v1");
  EXPECT_TRUE(h.step(1).checked_finite);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  // A NaN velocity spreads to x_dot, theta and theta_dot; NaN fails no threshold, so the
  // episode goes on. theta_dot = 1e30 (a float32 value) ends it with x_dot and theta_dot
  // beyond float32's range.
  for (const std::vector<double>& state : {std::vector<double>{0, 0, 0, nan}, std::vector<double>{0, 0, 0.1, 1e30}}) {
    h.reset();
    try {
      h.step_from(state, 1);
      FAIL() << "a non-finite observation was accepted from state [" << state[2] << ", " << state[3] << "]";
    } catch (const EnvError& e) {
      EXPECT_STREQ(e.what(), "env CartPole-v1, episode step 1: observation element 1 is not finite");
    }
  }
}

TEST(CartPole, AWrapperDoesNotPassOnTheFiniteCheckClaim) {
  TimeLimit wrapped(make_env("CartPole-v1"), 10);
  std::vector<float> obs(4);
  wrapped.reset(3, std::as_writable_bytes(std::span(obs)));
  EXPECT_FALSE(wrapped.step(1, std::as_writable_bytes(std::span(obs))).checked_finite);
}

// CartPole checks its own observations (StepResult::checked_finite) and the vector env then
// skips its pass over the batch; a row that goes NaN or Inf is still named with its index,
// on a step that ends the episode (theta_dot 1e30) and on one that does not (NaN).
TEST(CartPole, ANonFiniteRowOfAVectorEnvIsNamedWithItsIndex) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (int threads : {0, 2}) {
    for (const std::vector<double>& state : {std::vector<double>{0, 0, 0, nan}, std::vector<double>{0, 0, 0.1, 1e30}}) {
      std::unique_ptr<VectorEnv> venv;
      if (threads == 0) venv = std::make_unique<SyncVectorEnv>(make_envs("CartPole-v1", 4));
      else venv = std::make_unique<ThreadedVectorEnv>(make_envs("CartPole-v1", 4), threads);
      venv->reset(0);
      std::vector<std::int64_t> actions(4, 1);
      venv->step(std::span<const std::int64_t>(actions));
      std::vector<float> scratch(4);
      dynamic_cast<StateAccess&>(venv->env(2)).set_state(state, std::as_writable_bytes(std::span(scratch)));
      std::string message;
      try {
        venv->step(std::span<const std::int64_t>(actions));
      } catch (const EnvError& e) {
        message = e.what();
      }
      EXPECT_NE(message.find("env CartPole-v1, episode step 2: observation element 1 is not finite"), std::string::npos)
          << message;
      EXPECT_NE(message.find("vector env index 2 of 4"), std::string::npos)
          << "threads " << threads << ", theta_dot " << state[3] << ": " << message;
    }
  }
}

// A vector env steps runs of CartPoles in CartPole's own loop (Env::step_run: two envs at a
// time in SSE2 lanes, one at a time where a neighbour takes a detour), or of mixed types through
// the vtable: either way each env goes exactly as it does alone. 71 envs (two full runs of 32
// and an odd one), time limits of 5 to 11 steps on some of them (truncation inside the run),
// strict actions on every fifth (a detour: its pair goes one by one), every third env wrapped in
// the mixed vector env.
TEST(CartPole, AVectorEnvStepsEachEnvAsItStepsAlone) {
  constexpr int kEnvs = 71, kSteps = 120;
  const auto make = [](int k, bool wrap) -> std::unique_ptr<Env> {
    auto env = make_env("CartPole-v1");
    if (k % 2 == 0) env->set_max_episode_steps(5 + k % 7);
    if (k % 5 == 1) env->set_strict_actions(true);
    if (wrap && k % 3 == 0) return std::make_unique<TimeLimit>(std::move(env), 1000);
    return env;
  };
  for (const int mode : {0, 1, 2}) {  // one type, mixed types, one type on 2 threads
    std::vector<std::unique_ptr<Env>> envs, alone;
    for (int k = 0; k < kEnvs; ++k) {
      envs.push_back(make(k, mode == 1));
      alone.push_back(make(k, mode == 1));
    }
    std::unique_ptr<VectorEnv> venv;
    if (mode == 2) venv = std::make_unique<ThreadedVectorEnv>(std::move(envs), 2);
    else venv = std::make_unique<SyncVectorEnv>(std::move(envs));
    venv->reset(11);
    std::vector<float> obs(kEnvs * 4), final_obs(kEnvs * 4);
    for (int k = 0; k < kEnvs; ++k)
      alone[k]->reset(11 + k, std::as_writable_bytes(std::span(obs).subspan(k * 4, 4)));
    std::vector<std::int64_t> actions(kEnvs);
    int ended = 0;
    for (int t = 0; t < kSteps; ++t) {
      for (int k = 0; k < kEnvs; ++k) actions[k] = (t * 7 + k * 3 + t / 5) % 2;
      venv->step(std::span<const std::int64_t>(actions));
      for (int k = 0; k < kEnvs; ++k) {
        const auto row = std::as_writable_bytes(std::span(obs).subspan(k * 4, 4));
        const StepResult r = alone[k]->step(actions[k], row);
        ASSERT_EQ(venv->rewards()[k], r.reward) << "mode " << mode << ", step " << t << ", env " << k;
        ASSERT_EQ(venv->terminated()[k], r.terminated) << "mode " << mode << ", step " << t << ", env " << k;
        ASSERT_EQ(venv->truncated()[k], r.truncated) << "mode " << mode << ", step " << t << ", env " << k;
        if (r.done()) {
          ++ended;
          EXPECT_EQ(0, std::memcmp(venv->final_observations<float>().data() + k * 4, obs.data() + k * 4, 16));
          EXPECT_EQ(venv->episode_returns()[k], alone[k]->info().episode_return);
          EXPECT_EQ(venv->episode_lengths()[k], alone[k]->info().episode_length);
          alone[k]->reset(std::nullopt, row);
        }
      }
      ASSERT_EQ(0, std::memcmp(venv->observations<float>().data(), obs.data(), obs.size() * sizeof(float)))
          << "mode " << mode << ", step " << t;
    }
    EXPECT_GT(ended, kEnvs);  // every env's episodes end, by termination or by its time limit
  }
}

// A bad action in a run of CartPoles is named with its env's index whichever side of a pair
// it is on, and the envs before it have stepped while those after it have not, as in a loop
// over the envs one by one.
TEST(CartPole, AVectorEnvNamesABadActionAndStepsTheEnvsBeforeIt) {
  for (const int bad_at : {4, 5, 8}) {
    std::vector<std::unique_ptr<Env>> envs;
    for (int k = 0; k < 9; ++k) envs.push_back(make_env("CartPole-v1"));
    SyncVectorEnv venv(std::move(envs));
    venv.reset(3);
    std::vector<std::int64_t> actions(9, 1);
    actions[static_cast<std::size_t>(bad_at)] = 2;
    std::string message = "no error";
    try {
      venv.step(std::span<const std::int64_t>(actions));
    } catch (const EnvError& e) {
      message = e.what();
    }
    EXPECT_NE(message.find("invalid action 2 for action space Discrete(2)"), std::string::npos) << message;
    EXPECT_NE(message.find(fmt::format("vector env index {} of 9", bad_at)), std::string::npos) << message;
    for (int k = 0; k < 9; ++k)
      EXPECT_EQ(venv.env(k).elapsed_steps(), k < bad_at ? 1 : 0) << "bad action at " << bad_at << ", env " << k;
  }
}

TEST(CartPole, Conformance) {
  const auto report = check_env_conformance(test::registered("CartPole-v1"));
  EXPECT_TRUE(report.ok()) << report.summary();
  EXPECT_GT(report.steps, 0);
}

}  // namespace
}  // namespace rlzoo
