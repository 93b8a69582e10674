// DMC (DouZero) learns DouDizhu: with the shipped preset, the greedy model's mean score over
// deals played in both roles against the random player (DmcAgent::evaluate: ADP; 0 for a
// random model by symmetry; the rule-based agent scores about +2.5) must reach +1.2 within
// 2.56M frames (seen: +2.45 at 1.28M frames after 288 s on 2 cores, 2026-11-22; the untrained
// model scores about -1.3, and runs differ: another reached WP 0.8 at 1M frames). An
// evaluation is 20 deals x 2 roles; a model that plays like random reaches +1.2 by chance with
// probability ~0.1% per evaluation. Label "long": scripts/test --long.
#include "tests/learning/reach_target.h"

namespace rlzoo {
namespace {

TEST(DmcLearning, DouDizhuBeatsRandomPlay) {
  test::expect_reaches_target("configs/dmc/DouDizhu-v0.yaml", "dmc DouDizhu-v0 (ADP vs random)", 2'560'000, 320'000,
                              1.2, /*max_seconds=*/1200.0);
}

}  // namespace
}  // namespace rlzoo
