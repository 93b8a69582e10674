#include "envs/box2d/register.h"

#include "core/registry/env_registry.h"
#include "envs/box2d/cartpole_rllab.h"

namespace rlzoo {

void register_box2d_envs() {
  register_env(CartPoleRllabEnv::kId,
               env_entry<CartPoleRllabEnv>(100, std::nullopt,
                                           "rllab's Box2D cart-pole behind normalize(): a continuous force, reward "
                                           "10 a step (the STORM-PG paper's Cart-Pole)"));
}

}  // namespace rlzoo
