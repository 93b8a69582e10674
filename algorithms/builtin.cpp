#include "algorithms/builtin.h"

#include <mutex>

#if __has_include("algorithms/dqn/dqn.h")  // DQN is landing in a parallel change
#include "algorithms/dqn/dqn.h"
#define RLZOO_HAVE_DQN 1
#endif
#include "algorithms/ppo/ppo.h"

namespace rlzoo {

void register_builtin_algorithms() {
  static std::once_flag once;
  std::call_once(once, [] {
    register_ppo();
#ifdef RLZOO_HAVE_DQN
    register_dqn();
#endif
  });
}

}  // namespace rlzoo
