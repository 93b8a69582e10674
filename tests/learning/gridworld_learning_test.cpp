// PPO on the empty 6x6 room reaches at least 90% of the optimal return (0.90: ten steps of
// -0.01 and the goal's +1) within 30k steps (about 3 s).
#include "tests/learning/reach_target.h"

namespace rlzoo {
namespace {

TEST(GridWorldLearning, PpoReachesNinetyPercentOfOptimalOnTheEmptyRoom) {
  test::expect_reaches_target("configs/ppo/GridWorld-Empty-v0.yaml", "ppo GridWorld-Empty-v0", 30'000, 5'000,
                              0.9 * 0.90);
}

}  // namespace
}  // namespace rlzoo
