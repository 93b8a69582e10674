// TD3's arithmetic (Fujimoto et al. 2018, as Stable-Baselines3's td3/td3.py computes it; DDPG
// is the case of one critic and no smoothing), as functions of tensors so that tests check
// each against a hand computation. Actions are in [-1, 1] units.
#pragma once

#include "core/torch/tensor.h"

namespace rlzoo {

// Target-policy smoothing: clamp(next_actions + clamp(noise * sigma, -clip, clip), -1, 1), with
// standard normal noise [B, d].
torch::Tensor td3_smoothed_actions(const torch::Tensor& next_actions, const torch::Tensor& noise, double sigma,
                                   double clip);
// r + discount (1 - terminated) min_i Q'_i(s', a'), next_q [n_critics, B], the rest [B].
torch::Tensor td3_critic_target(const torch::Tensor& next_q, const torch::Tensor& rewards, const torch::Tensor& discounts,
                                const torch::Tensor& terminated);
// sum over critics of mean((Q_i - target)^2) (SB3's TD3 loss: no factor 1/2).
torch::Tensor td3_critic_loss(const torch::Tensor& current_q, const torch::Tensor& target);

}  // namespace rlzoo
