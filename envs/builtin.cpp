#include "envs/builtin.h"

#include <mutex>

#include "envs/classic_control/register.h"
#include "envs/doudizhu/doudizhu_env.h"
#include "envs/gridworld/grid_world.h"
#include "envs/gridworld/secbad_grid.h"
#ifdef RLZOO_WITH_MUJOCO
#include "envs/mujoco/register.h"
#endif
#ifdef RLZOO_WITH_BOX2D
#include "envs/box2d/register.h"
#endif

namespace rlzoo {

void register_builtin_envs() {
  static std::once_flag once;
  std::call_once(once, [] {
    register_classic_control_envs();
    doudizhu::register_doudizhu_envs();
    register_gridworld_envs();
    register_secbad_grid();
#ifdef RLZOO_WITH_MUJOCO
    register_mujoco_envs();
#endif
#ifdef RLZOO_WITH_BOX2D
    register_box2d_envs();
#endif
  });
}

}  // namespace rlzoo
