// Target networks (DQN, SAC, TD3, DDPG): a copy of the online network that follows it, by hard
// copies or by Polyak averaging, as Stable-Baselines3's polyak_update.
#pragma once

#include <torch/nn/module.h>

namespace rlzoo {

// Copies `src`'s parameters and buffers into `dst` (the same architecture): a target starts so.
void copy_module(const torch::nn::Module& src, torch::nn::Module& dst);
// dst = (1 - tau) dst + tau src over the parameters (tau >= 1: a copy); buffers (statistics,
// not weights) are copied.
void polyak_update(const torch::nn::Module& src, torch::nn::Module& dst, double tau);

}  // namespace rlzoo
