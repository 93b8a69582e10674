// PPO learning test on a MuJoCo task (label `learning`): one LibTorch thread, well under 3
// minutes here. Built only with MuJoCo (RLZOO_WITH_MUJOCO).
//
// configs/ppo/InvertedPendulum-v4.yaml (rl-baselines3-zoo's tuned values, normalisation on),
// evaluated every 1,000 env steps on 20 deterministic episodes. The test passes when an
// evaluation reaches a mean return >= 950 (the maximum is 1000) within a budget of 25,000 env
// steps.
//
// BLAS kernels differ between CPUs, so a fixed seed is no guarantee: the budget keeps a margin
// of over 2x over the slowest of the seeds tried on this project's 2-core machine (CLI,
// `--set eval.every=1000 --set eval.episodes=20`, seeds run one after another, other work
// running). First evaluation >= 950 at, with the wall time from the start of training to the
// end of that evaluation (evaluations included):
//   seed 0: 10k (5.5 s), 1: 10k (5.3 s), 2: 11k (4.2 s), 3: 9k (4.6 s), 4: 11k (4.5 s),
//   5: 9k (4.5 s), 6: 8k (3.2 s), 7: 7k (2.7 s), 8: 10k (4.1 s), 9: 10k (4.1 s).
// This test with RLZOO_LEARNING_SEEDS=0,1,2,3,4 stopped at the same steps (10016, 10016, 11008,
// 9024, 11008: evaluations fall on 32-step rollout boundaries) in 4.1-5.2 s per seed.
// The policy is not stable after that (seed 0 fell back to ~100 at 17k and 21k before returning
// to 1000), which stopping at the first success sidesteps. A seed that never gets there costs
// about 20-25 s (25k steps and 25 evaluations). The test runs seed 0;
// RLZOO_LEARNING_SEEDS=0,1,2,3,4 runs others.
#include <gtest/gtest.h>

#ifdef RLZOO_WITH_MUJOCO

#include "tests/learning/reach_target.h"

namespace rlzoo {
namespace {

TEST(PpoMujocoLearning, InvertedPendulumReaches950) {
  test::expect_reaches_target("configs/ppo/InvertedPendulum-v4.yaml", "ppo InvertedPendulum-v4", 25'000, 1'000, 950.0);
}

}  // namespace
}  // namespace rlzoo

#endif  // RLZOO_WITH_MUJOCO
