// A next-step autoreset vector env's checkpoint (core/vector/vector_env.h) on envs that save
// their state: the pending resets come back, and a same-step vector env refuses the state.
#include <gtest/gtest.h>

#include <vector>

#include "core/registry/env_registry.h"
#include "core/vector/vector_env.h"
#include "envs/builtin.h"

namespace rlzoo {
namespace {

std::vector<std::unique_ptr<Env>> cartpoles(int n) {
  register_builtin_envs();
  std::vector<std::unique_ptr<Env>> envs;
  for (int i = 0; i < n; ++i) envs.push_back(make_env("CartPole-v1"));
  return envs;
}

TEST(VectorEnvNextStep, ACheckpointKeepsThePendingResets) {
  SyncVectorEnv venv(cartpoles(2));
  venv.set_autoreset_mode(AutoresetMode::next_step);
  venv.reset(3);
  const std::vector<std::int64_t> actions{1, 0};  // env 0 pushes right until the pole falls
  int steps = 0;
  while (!venv.terminated()[0]) {
    venv.step(std::span<const std::int64_t>(actions));
    ASSERT_LT(++steps, 200);
  }
  const auto state = venv.save_state();
  SyncVectorEnv same_step(cartpoles(2));
  const auto before = same_step.env(0).save_state();
  EXPECT_THROW(same_step.load_state(state), UserError);
  EXPECT_EQ(same_step.env(0).save_state(), before);  // refused before any env was loaded
  SyncVectorEnv resumed(cartpoles(2));
  resumed.set_autoreset_mode(AutoresetMode::next_step);
  resumed.load_state(state);
  ASSERT_EQ(resumed.resets_pending()[0], 1);
  venv.step(std::span<const std::int64_t>(actions));
  resumed.step(std::span<const std::int64_t>(actions));
  for (int i = 0; i < 2; ++i) EXPECT_EQ(resumed.env(i).elapsed_steps(), venv.env(i).elapsed_steps());
  EXPECT_EQ(resumed.env(0).elapsed_steps(), 0);
  for (std::size_t k = 0; k < 8; ++k) EXPECT_EQ(resumed.observations<float>()[k], venv.observations<float>()[k]);
  // With no reset pending (all zeros saved), a same-step vector env takes the state.
  auto none_pending = venv.save_state();
  none_pending["resets_pending"] = std::vector<std::uint8_t>{0, 0};
  SyncVectorEnv later(cartpoles(2));
  EXPECT_NO_THROW(later.load_state(none_pending));
}

}  // namespace
}  // namespace rlzoo
