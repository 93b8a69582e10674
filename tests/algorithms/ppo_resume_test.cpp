// Resuming PPO from a checkpoint reproduces the uninterrupted run bit for bit (synchronous,
// CPU, one thread): parameters, optimizer and normaliser state, envs mid-episode, RNG.
#include <gtest/gtest.h>

#include "rl/agent.h"
#include "algorithms/builtin.h"
#include "algorithms/ppo/ppo.h"
#include "envs/builtin.h"
#include "tests/support/test_paths.h"

namespace rlzoo {
namespace {

void expect_same_parameters(torch::nn::Module& a, torch::nn::Module& b) {
  const auto pa = a.named_parameters(), pb = b.named_parameters();
  ASSERT_EQ(pa.size(), pb.size());
  for (const auto& p : pa) EXPECT_TRUE(p.value().equal(pb[p.key()])) << p.key();
}

void check_resume(const std::string& env, const std::vector<std::string>& overrides, std::int64_t cycle) {
  register_builtin_envs();
  register_builtin_algorithms();
  auto straight = make_agent("ppo", env, overrides);
  straight->set_progress_bar(false);
  straight->learn(2 * cycle);  // N steps, "checkpoint", N more
  const std::string dir = test::make_temp_dir("rlzoo-ppo-resume") + "/ckpt";
  {
    auto first = make_agent("ppo", env, overrides);
    first->set_progress_bar(false);
    first->learn(cycle);
    first->save(dir);
  }
  auto resumed = load_agent(dir);  // a fresh agent, as in a new process
  resumed->set_progress_bar(false);
  EXPECT_EQ(resumed->num_timesteps(), cycle);
  resumed->learn(cycle);
  EXPECT_EQ(resumed->num_timesteps(), 2 * cycle);
  expect_same_parameters(*dynamic_cast<PpoAgent&>(*straight).policy(), *dynamic_cast<PpoAgent&>(*resumed).policy());
  // The next actions sampled agree too (same generator state, same normalisers).
  const auto obs = torch::randn({4, static_cast<std::int64_t>(straight->env_spec().observation_space.numel())});
  EXPECT_TRUE(straight->act(obs).equal(resumed->act(obs)));
}

// The invariant exact resume rests on: learning in two calls is learning in one. (Each agent
// is made after the previous one learned: making an agent seeds LibTorch's global generator.)
TEST(PpoResume, TwoLearnCallsAreOne) {
  register_builtin_envs();
  register_builtin_algorithms();
  const std::vector<std::string> overrides{"hyperparams.n_envs=2", "hyperparams.n_steps=64", "hyperparams.batch_size=64",
                                           "hyperparams.n_epochs=2"};
  for (const std::string env : {"CartPole-v1", "Pendulum-v1"}) {
    SCOPED_TRACE(env);
    auto one = make_agent("ppo", env, overrides);
    one->set_progress_bar(false);
    one->learn(256);
    auto two = make_agent("ppo", env, overrides);
    two->set_progress_bar(false);
    two->learn(128);
    two->learn(128);
    expect_same_parameters(*dynamic_cast<PpoAgent&>(*one).policy(), *dynamic_cast<PpoAgent&>(*two).policy());
  }
}

TEST(PpoResume, CartPoleContinuesBitForBit) {
  // 4 envs x 32 steps = 128 steps per cycle; episodes are mid-way at the checkpoint.
  check_resume("CartPole-v1", {"hyperparams.n_envs=4", "hyperparams.n_steps=32", "hyperparams.batch_size=32",
                               "hyperparams.n_epochs=2", "hyperparams.lr_schedule=linear", "n_timesteps=2000"},
               3 * 128);
}

TEST(PpoResume, PendulumWithNormalisersContinuesBitForBit) {
  check_resume("Pendulum-v1", {"hyperparams.n_envs=2", "hyperparams.n_steps=64", "hyperparams.batch_size=64",
                               "hyperparams.n_epochs=2", "hyperparams.normalize_obs=true",
                               "hyperparams.normalize_reward=true"},
               2 * 128);
}

TEST(PpoResume, RecurrentContinuesBitForBit) {
  // The training envs' LSTM state is saved with them, mid-episode.
  check_resume("CartPoleNoVel-v1", {"hyperparams.n_envs=4", "hyperparams.n_steps=32", "hyperparams.batch_size=64",
                                    "hyperparams.n_epochs=2", "hyperparams.normalize_obs=true",
                                    "hyperparams.policy.recurrent.cell=lstm", "hyperparams.policy.recurrent.hidden=16"},
               3 * 128);
}

}  // namespace
}  // namespace rlzoo
