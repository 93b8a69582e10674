// SeCBAD's MuJoCo tasks with piecewise-stable contexts: rewards against hand computations from
// the velocities, context changes inside an episode, conformance.
#include <mujoco/mujoco.h>

#include <algorithm>
#include <cmath>

#include <gtest/gtest.h>

#include "core/env/conformance.h"
#include "core/registry/env_registry.h"
#include "envs/contexts/piecewise_context.h"
#include "envs/builtin.h"
#include "envs/mujoco/piecewise_tasks.h"

namespace rlzoo {
namespace {

using Task = PiecewiseTaskEnv::Task;

TEST(PiecewiseMujoco, CheetahRewardsFollowTheContext) {
  for (Task t : {Task::CheetahDirection, Task::CheetahVelocity}) {
    PiecewiseTaskEnv env(t);
    std::vector<double> obs(17);
    auto o = std::as_writable_bytes(std::span(obs));
    env.reset(3, o);
    const std::vector<float> a{0.5f, -0.2f, 0.1f, 0.3f, -0.4f, 0.2f};
    double sq = 0;
    for (float x : a) sq += static_cast<double>(x) * x;
    for (double c : {1.0, -1.0}) {
      const std::vector<double> ctx{t == Task::CheetahDirection ? c : 1.5 + c};
      env.set_context(ctx);
      const auto r = env.step(std::span<const float>(a), o);
      const double vx = *env.info().scalar("x_velocity");
      const double expected = t == Task::CheetahDirection ? ctx[0] * vx : -std::abs(vx - ctx[0]);
      EXPECT_NEAR(r.reward, expected - 0.1 * sq, 1e-12);
      EXPECT_FALSE(r.done());
    }
  }
  PiecewiseTaskEnv dir(Task::CheetahDirection);
  const std::vector<double> bad{0.5};
  EXPECT_THROW(dir.set_context(bad), UserError);
}

TEST(PiecewiseMujoco, AntRewardIsVelocityAlongTheHeadingMinusCosts) {
  PiecewiseTaskEnv env(Task::AntDirection);
  std::vector<double> obs(27);
  auto o = std::as_writable_bytes(std::span(obs));
  env.reset(1, o);
  const std::vector<float> a{0.3f, -0.3f, 0.2f, 0.1f, -0.5f, 0.4f, 0.0f, 0.2f};
  const std::vector<double> heading{0.7};
  env.set_context(heading);
  for (int t = 0; t < 5; ++t) {
    const auto r = env.step(std::span<const float>(a), o);
    const double along = *env.info().scalar("velocity_along"), across = *env.info().scalar("velocity_across");
    double sq = 0, contact = 0;
    for (float x : a) sq += static_cast<double>(x) * x;
    for (int i = 0; i < 6 * env.model()->nbody; ++i) {
      const double f = std::clamp(env.data()->cfrc_ext[i], -1.0, 1.0);
      contact += f * f;
    }
    EXPECT_NEAR(r.reward, along - 0.05 * sq - 5e-4 * contact - 0.5 * across, 1e-12);
    EXPECT_GE(across, 0.0);
  }
}

TEST(PiecewiseMujoco, ContextsChangeWithinAnEpisodeAndConform) {
  register_builtin_envs();
  for (const char* id : {"HalfCheetahDirPiecewise-v0", "HalfCheetahVelPiecewise-v0", "AntDirPiecewise-v0"}) {
    SCOPED_TRACE(id);
    auto env = make_env(id);
    EXPECT_EQ(env->max_episode_steps(), 200);
    std::vector<double> obs(static_cast<std::size_t>(env->observation_space().numel()));
    auto o = std::as_writable_bytes(std::span(obs));
    env->reset(7, o);
    std::vector<float> a(static_cast<std::size_t>(env->action_space().numel()), 0.0f);
    int changes = 0;
    for (int t = 0; t < 199; ++t) {
      env->step(std::span<const float>(a), o);
      changes += env->info().scalar("segment_change") == 1.0;
    }
    EXPECT_GE(changes, 1);  // segments of ~80 steps: at least one change in 200
    ConformanceOptions opt;
    opt.episodes_per_seed = 1;
    const auto report = check_env_conformance([id] { return make_env(id); }, opt);
    EXPECT_TRUE(report.ok()) << report.summary();
  }
}

}  // namespace
}  // namespace rlzoo

namespace rlzoo {
namespace {

// RL²'s inputs on a float64 MuJoCo observation: the observation stays float64, the previous
// (float32) action and the reward are appended exactly.
TEST(PiecewiseMujoco, PreviousActionRewardKeepsFloat64Observations) {
  register_builtin_envs();
  auto env = make_env("HalfCheetahDirPiecewise-v0", YAML::Load("{wrappers: [previous_action_reward]}"));
  const Space& obs = env->observation_space();
  ASSERT_EQ(obs.dtype(), DType::Float64);
  ASSERT_EQ(obs.numel(), 17 + 6 + 1);
  std::vector<double> o(24);
  env->reset(3, std::as_writable_bytes(std::span(o)));
  EXPECT_TRUE(std::all_of(o.begin() + 17, o.end(), [](double v) { return v == 0.0; }));
  const std::vector<float> a{0.5f, -0.25f, 1.0f, 0.0f, -1.0f, 0.125f};
  const auto r = env->step(std::span<const float>(a), std::as_writable_bytes(std::span(o)));
  for (int i = 0; i < 6; ++i) EXPECT_EQ(o[static_cast<std::size_t>(17 + i)], static_cast<double>(a[static_cast<std::size_t>(i)]));
  EXPECT_EQ(o[23], r.reward);
  ConformanceOptions opt;
  opt.episodes_per_seed = 1;
  const auto report = check_env_conformance(
      [] { return make_env("HalfCheetahDirPiecewise-v0", YAML::Load("{wrappers: [previous_action_reward]}")); }, opt);
  EXPECT_TRUE(report.ok()) << report.summary();
}

}  // namespace
}  // namespace rlzoo
