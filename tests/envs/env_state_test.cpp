// Env::save_state/load_state: a fresh env loaded mid-episode continues exactly like the
// original (observations, rewards, flags, and later resets through the saved Rng).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/registry/env_registry.h"
#include "envs/builtin.h"

namespace rlzoo {
namespace {

class EnvState : public ::testing::TestWithParam<std::string> {};

TEST_P(EnvState, LoadedEnvContinuesIdentically) {
  register_builtin_envs();
  auto a = make_env(GetParam());
  auto b = make_env(GetParam());
  const Space& as = a->action_space();
  std::vector<std::byte> oa(a->observation_space().byte_size()), ob(oa.size()), act(as.byte_size());
  Rng rng(4);
  a->reset(17, oa);
  for (int t = 0; t < 37; ++t) {
    as.sample(rng, act);
    if (a->step(ConstBytes(act), oa).done()) a->reset(std::nullopt, oa);
  }
  const nlohmann::json saved = nlohmann::json::parse(a->save_state().dump());  // through text, as in a file
  b->load_state(saved, ob);
  EXPECT_EQ(oa, ob);
  EXPECT_EQ(a->elapsed_steps(), b->elapsed_steps());
  for (int t = 0; t < 600; ++t) {  // crosses episode ends: resets use the restored Rng
    as.sample(rng, act);
    const StepResult ra = a->step(ConstBytes(act), oa), rb = b->step(ConstBytes(act), ob);
    ASSERT_EQ(oa, ob) << t;
    ASSERT_EQ(ra.reward, rb.reward) << t;
    ASSERT_EQ(ra.terminated, rb.terminated) << t;
    ASSERT_EQ(ra.truncated, rb.truncated) << t;
    if (ra.done()) {
      ASSERT_EQ(a->info().episode_return, b->info().episode_return);
      a->reset(std::nullopt, oa);
      b->reset(std::nullopt, ob);
    }
  }
  // A state saved by another env is rejected.
  auto other = make_env(GetParam() == "CartPole-v1" ? "Pendulum-v1" : "CartPole-v1");
  std::vector<std::byte> oo(other->observation_space().byte_size());
  EXPECT_THROW(other->load_state(saved, oo), UserError);
}

INSTANTIATE_TEST_SUITE_P(ClassicControl, EnvState,
                         ::testing::Values("CartPole-v1", "Acrobot-v1", "MountainCar-v0", "MountainCarContinuous-v0",
                                           "Pendulum-v1"),
                         [](const auto& info) {
                           std::string s = info.param;
                           for (auto& c : s)
                             if (c == '-') c = '_';
                           return s;
                         });

}  // namespace
}  // namespace rlzoo
