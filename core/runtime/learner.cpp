#include "core/runtime/learner.h"

namespace rlzoo {

std::int64_t run_learner(TrajectorySource& source, Learner& learner) {
  std::int64_t rounds = 0;
  while (auto round = source.next_round()) {
    ++rounds;
    const bool go_on = learner.learn_from(*round);
    source.recycle(std::move(*round));
    if (!go_on) break;
  }
  return rounds;
}

}  // namespace rlzoo
