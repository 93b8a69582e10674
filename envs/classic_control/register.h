#pragma once
namespace rlzoo {
// CartPole-v1, Acrobot-v1, MountainCar-v0, MountainCarContinuous-v0, Pendulum-v1.
void register_classic_control_envs();
}  // namespace rlzoo
