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

// The plain loops behind both on raw rows, which DQN's plain-pass update
// (algorithms/dqn/dqn_fused_update.h) calls directly.
//
// out[i] as dqn_targets: next_q and online_next_q (null: no double Q) [rows, n].
void dqn_target_rows(const float* next_q, const float* online_next_q, const float* rewards, const float* discounts,
                     const float* terminated, std::int64_t rows, std::int64_t n, float* out);

struct DqnLossValue {
  double value = 0;   // the loss
  double q_mean = 0;  // the mean Q value of the taken actions
};
// dqn_td_loss on q [rows, n], the taken action of row i being actions[i] - action_offset;
// slope[i] = d loss / d q[i, that action] (the gradient is zero at the other actions).
DqnLossValue dqn_td_rows(const float* q, std::int64_t n, const std::int64_t* actions, std::int64_t action_offset,
                         const float* targets, std::int64_t rows, bool huber, float* slope);

}  // namespace rlzoo
