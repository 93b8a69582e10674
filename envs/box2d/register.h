// Registers the Box2D tasks (CartPoleRllab-v0) in the env registry.
#pragma once

namespace rlzoo {

void register_box2d_envs();

}  // namespace rlzoo
