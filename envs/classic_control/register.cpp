#include "envs/classic_control/register.h"
namespace rlzoo {
void register_classic_control_envs() {}
}  // namespace rlzoo
