// DQN's targets and TD loss for one sampled batch. On plain CPU float32 tensors both run as
// plain loops, the loss as one autograd node (forward: the taken actions' Q values against the
// targets; backward: the gradient at those Q values, zero elsewhere) instead of gather, squeeze,
// the loss and their backward nodes; elsewhere (a GPU, other dtypes) as LibTorch operations.
// The same values to float rounding (tests/algorithms/dqn_loss_test.cpp).
#pragma once

#include "core/torch/tensor.h"

namespace rlzoo {

// rewards + discounts * (1 - terminated) * V(next), V(next) = max_a next_q, or with double Q
// next_q at argmax_a online_next_q (online_next_q defined). All [B] but the Q tables [B, n].
torch::Tensor dqn_targets(const torch::Tensor& next_q, const torch::Tensor& online_next_q, const torch::Tensor& rewards,
                          const torch::Tensor& discounts, const torch::Tensor& terminated);

struct DqnLoss {
  torch::Tensor loss;   // scalar, differentiable with respect to the Q table
  double value = 0;     // the loss's value
  double q_mean = 0;    // the mean Q value of the taken actions
};

// The mean Huber (smooth L1, beta 1) or squared error between q_all[i, actions[i]] and
// targets[i]; actions int64 from 0.
DqnLoss dqn_td_loss(const torch::Tensor& q_all, const torch::Tensor& actions, const torch::Tensor& targets, bool huber);

}  // namespace rlzoo
