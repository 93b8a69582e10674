// Golden numerics (issue #28, item 9): a fingerprint of every tensor an agent saves (networks and
// optimiser state) after a short single-threaded run of each algorithm, recorded on main before
// the training driver replaces the algorithms' own loops. A change that alters the arithmetic or
// the order of random draws changes a fingerprint; such a change says which and why, and updates
// the values here in the same commit.
//
// OpenBLAS's kernels round differently, so each value is recorded per kernel, and the test
// compares with the one for the kernel this process runs (OpenBLAS names it in its config
// string). Recorded 2026-11-27 on the project's machine with OPENBLAS_CORETYPE forced to each:
// Haswell and Zen agree; SkylakeX and Cooperlake differ from them and, for SeCBAD, from each
// other. LibTorch's own kernels run at ATen's avx2 level on these CPUs unless
// ATEN_CPU_CAPABILITY says otherwise (avx512 changes the values too). A kernel with no recorded
// value skips, naming it.
//
// Each test runs in a process of its own, as CTest runs them: in one process after other tests
// a value can differ (DQN's did after the DMC tests, under a forced kernel), a dependence on
// what ran before that the training driver's one thread and RNG set-up is meant to remove.
#include <gtest/gtest.h>

#include <torch/torch.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "rl/agent.h"
#include "algorithms/builtin.h"
#include "core/torch/threads.h"
#include "envs/builtin.h"
#include "tests/algorithms/golden_numerics.h"
#include "tests/support/cartpole_dataset.h"
#include "tests/support/test_paths.h"

namespace rlzoo {
namespace {

void expect_golden(const std::string& algo, const std::string& env, std::vector<std::string> overrides,
                   std::int64_t steps, const test::Golden& golden) {
  register_builtin_envs();
  register_builtin_algorithms();
  // One BLAS and LibTorch thread from the start, whatever ran before in this process: SeCBAD
  // does BLAS work while it is made, before its own thread setting, and OpenBLAS's default
  // (one thread per core) splits that work, and rounds it, by the machine's core count.
  configure_threads(1, 1);
  overrides.insert(overrides.end(), {"seed=0", "torch_threads=1", "log_every=1000000"});
  auto agent = make_agent(algo, env, overrides);
  agent->set_progress_bar(false);
  agent->learn(steps);
  EXPECT_GE(agent->num_timesteps(), steps);
  test::expect_fingerprint(test::fingerprint(*agent), golden,
                           algo + " on " + env + " after " + std::to_string(steps) + " steps");
}

// dmc's learner always takes its experience from actor threads, so its parameters after N
// steps depend on thread timing: its fingerprint is of its update on fixed frames
// (GoldenNumerics.DmcTrainStep in dmc_test.cpp).
TEST(GoldenNumerics, Ppo) {
  expect_golden("ppo", "CartPole-v1", {"hyperparams.n_envs=2", "hyperparams.n_steps=64", "hyperparams.batch_size=32"},
                512,
                {"5e59df2406d3f81f04a57c506c2d1537f2c65db003ba12df34f53e8a5de2ac10",
                 "e89e176b96ed3eaff3370c2b5ae7d0e1709d43d558717d7642f66eb3b30a0b64",
                 "e89e176b96ed3eaff3370c2b5ae7d0e1709d43d558717d7642f66eb3b30a0b64"});
}

TEST(GoldenNumerics, Dqn) {
  expect_golden("dqn", "CartPole-v1", {"hyperparams.learning_starts=200"}, 1000,
                {"a5227dd3862e43cff4028f31c4895b447d91a6387a1391d8a4a98b56d4f06fba",
                 "b8f0b3976ec88a7b8dd5ea01e844ee206663c394f31183a4595e6c0b5a91ed4f",
                 "b8f0b3976ec88a7b8dd5ea01e844ee206663c394f31183a4595e6c0b5a91ed4f"});
}

TEST(GoldenNumerics, StormPg) {
  expect_golden("storm_pg", "CartPole-v1",
                {"hyperparams.batch_size=5", "hyperparams.initial_batch=5", "hyperparams.horizon=50"}, 500,
                {"2e9d79d6c7e384a7dd78ec88fe6f3d5185fe290c7f75336af0cbf4c4560a234d",
                 "991d2e3f118ca2b675ef7ba33626e0b1df25b8b64d9c4da216e6b3e6457e93c0",
                 "991d2e3f118ca2b675ef7ba33626e0b1df25b8b64d9c4da216e6b3e6457e93c0"});
}

TEST(GoldenNumerics, Secbad) {
  expect_golden("secbad", "SecbadGrid-v0",
                {"hyperparams.ppo.n_envs=4", "hyperparams.vae.pretrain_frames=0", "hyperparams.vae.batch_episodes=4"},
                720,
                {"e1566488001452677917ea8da2edb71725ff841344e7d207c12a9ea3c21d1499",
                 "fd9edb45aa14721728f39462e20944bacb9a259f3f62e9caa8c6d1b19bbb3ae1",
                 "ffee1ce4515c2bd242d7f57a051b57a8f9168a17bb0edf7811c69706e75a7603"});
}

TEST(GoldenNumerics, Dt) {
  const std::string data = test::write_cartpole_dataset();
  expect_golden("dt", "CartPole-v1",
                {"hyperparams.dataset=" + data, "hyperparams.context=5", "hyperparams.width=32", "hyperparams.layers=1",
                 "hyperparams.batch_size=32", "hyperparams.warmup_steps=10"},
                100,
                {"6898c2e626fc688b45f0178c9c5346148ba4f1e35e2d626b26ed33003c1541cd",
                 "f41d312d4ad8a9a3cb1f6b7ef60801a907b684c2a67723100fb7693a3001f78e",
                 "f41d312d4ad8a9a3cb1f6b7ef60801a907b684c2a67723100fb7693a3001f78e"});
}

}  // namespace
}  // namespace rlzoo
