// SAC and TD3 learning tests (label `learning`): one LibTorch thread.
//
// configs/bench/sac/Pendulum-v1.yaml (64-64 networks, batch 100), evaluated every 2,000 env
// steps on 20 deterministic episodes; passes when an evaluation reaches a mean return >= -200
// within 16,000 env steps. BLAS kernels differ between CPUs, so a fixed seed is no guarantee:
// the budget keeps a margin of 2.7x over the slowest seed tried on this project's 2-core
// machine (first evaluation >= -200 at: seed 0: 6k, 1: 6k, 2: 6k, 3: 6k, 4: 4k env steps, 2.8-4.5
// s each). The test runs seed 0; RLZOO_LEARNING_SEEDS=0,1,2,3,4 runs others.
#include <gtest/gtest.h>

#include "tests/learning/reach_target.h"

namespace rlzoo {
namespace {

TEST(SacLearning, PendulumReachesMinus200) {
  test::expect_reaches_target("configs/bench/sac/Pendulum-v1.yaml", "sac Pendulum-v1", 16'000, 2'000, -200.0);
}

// configs/bench/td3/Pendulum-v1.yaml (64-64, batch 100, normal action noise 0.1), as above
// with a 20,000-step budget, 2x over the slowest seed (first evaluation >= -200 at: seed 0: 8k,
// 1: 10k, 2: 8k, 3: 8k, 4: 8k env steps, 3.2-4.1 s each).
TEST(Td3Learning, PendulumReachesMinus200) {
  test::expect_reaches_target("configs/bench/td3/Pendulum-v1.yaml", "td3 Pendulum-v1", 20'000, 2'000, -200.0);
}

#ifdef RLZOO_WITH_MUJOCO
// configs/td3/InvertedPendulum-v4.yaml (ours: 64-64, batch 100, tau 0.02), evaluated every
// 2,000 env steps on 20 deterministic episodes; passes at a mean return >= 950 (the maximum is
// 1000) within 28,000 env steps, 2x over the slowest seed tried (CLI, 10-episode evaluations
// every 2,000 steps; first >= 950 at: seed 0: 10k, 1: 14k, 2: 10k, 3: 10k, 4: 8k env steps).
TEST(Td3Learning, InvertedPendulumReaches950) {
  test::expect_reaches_target("configs/td3/InvertedPendulum-v4.yaml", "td3 InvertedPendulum-v4", 28'000, 2'000, 950.0);
}
#endif

}  // namespace
}  // namespace rlzoo
