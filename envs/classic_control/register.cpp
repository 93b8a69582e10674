#include "envs/classic_control/register.h"

#include <memory>

#include "core/registry/env_registry.h"
#include "core/wrappers/wrappers.h"
#include "envs/classic_control/acrobot.h"
#include "envs/classic_control/cartpole.h"
#include "envs/classic_control/mountain_car.h"
#include "envs/classic_control/mountain_car_continuous.h"
#include "envs/classic_control/pendulum.h"

namespace rlzoo {

void register_classic_control_envs() {
  register_env(CartPoleEnv::kId,
               env_entry<CartPoleEnv, CartPoleConfig>(500, 475.0, "Balance a pole on a cart by pushing it left or right"));
  // rl-baselines3-zoo's CartPoleNoVel-v1: CartPole-v1 observing only the cart position and the
  // pole angle, so a policy must infer the velocities from the past (a memory task).
  EnvEntry novel;
  novel.factory = [](const YAML::Node& kwargs, const ConfigContext& ctx) -> std::unique_ptr<Env> {
    return std::make_unique<SelectObservation>(std::make_unique<CartPoleEnv>(parse_config<CartPoleConfig>(kwargs, ctx)),
                                               std::vector<std::int64_t>{0, 2}, "CartPoleNoVel-v1");
  };
  novel.max_episode_steps = 500;
  novel.reward_threshold = 475.0;
  novel.description = "CartPole-v1 observing only the cart position and the pole angle (no velocities): needs memory";
  novel.describe_kwargs = [] { return document_config<CartPoleConfig>(); };
  register_env("CartPoleNoVel-v1", std::move(novel));
  register_env(AcrobotEnv::kId, env_entry<AcrobotEnv, AcrobotConfig>(
                                    500, -100.0, "Swing a two-link arm, actuated at the elbow, above a line"));
  register_env(MountainCarEnv::kId,
               env_entry<MountainCarEnv, MountainCarConfig>(200, -110.0, "Drive an underpowered car up a hill (discrete)"));
  register_env(MountainCarContinuousEnv::kId,
               env_entry<MountainCarContinuousEnv, MountainCarContinuousConfig>(
                   999, 90.0, "Drive an underpowered car up a hill with a continuous, penalised force"));
  register_env(PendulumEnv::kId, env_entry<PendulumEnv, PendulumConfig>(
                                     200, std::nullopt, "Swing a pendulum up and keep it upright (continuous torque)"));
}

}  // namespace rlzoo
