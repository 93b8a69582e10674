// Registers the MuJoCo tasks (Gymnasium v4 ids and time limits) in the env registry.
#pragma once

namespace rlzoo {

void register_mujoco_envs();

}  // namespace rlzoo
