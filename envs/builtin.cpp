#include "envs/builtin.h"

#include <mutex>

#include "envs/classic_control/register.h"

namespace rlzoo {

void register_builtin_envs() {
  static std::once_flag once;
  std::call_once(once, [] { register_classic_control_envs(); });
}

}  // namespace rlzoo
