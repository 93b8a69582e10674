// PPO's minibatch loss as one autograd node, for a Categorical policy (on the logits) and for a
// diagonal Gaussian one (on the mean and the log-std): the log-probabilities, ratio, clipped
// surrogate, (clipped) value loss, entropy bonus and the logged statistics in one pass over the
// rows, and the gradients in one pass back. The same loss as ppo_loss()'s LibTorch operations
// (to float rounding; tests/algorithms/ppo_fused_loss_test.cpp), without the ~70 operations and
// autograd nodes that cost more than a small network's update itself (`rlzoo bench learner`).
#pragma once

#include "algorithms/ppo/ppo_config.h"
#include "algorithms/ppo/ppo_loss.h"
#include "core/torch/tensor.h"
#include "rl/buffers/rollout_buffer.h"
#include "rl/nets/distributions.h"

namespace rlzoo {

// Whether ppo_fused_loss() takes this distribution with these inputs: contiguous float32 CPU
// tensors (the log-std may be the expanded parameter), the minibatch's on the CPU, actions int64
// (Categorical) or float32 [B, d] (Gaussian).
bool ppo_fused_loss_applies(const ActionDistribution& dist, const torch::Tensor& values, const RolloutBuffer::Batch& mb);

// Statistics and losses as ppo_loss() returns them. A Categorical's mask applies as
// Categorical applies it.
PpoLoss ppo_fused_loss(const ActionDistribution& dist, const torch::Tensor& values, const RolloutBuffer::Batch& mb,
                       const PpoConfig& cfg, double clip);

// The Categorical loss's two passes on raw rows, which its autograd node and PPO's plain-pass
// update (ppo_fused_update.h) share: logits [rows, n], values [rows], actions int64 [rows],
// mask [rows, n] (null: none).
struct PpoCategoricalRows {
  const float* logits;
  const float* values;
  const std::int64_t* actions;
  const bool* mask;
  std::int64_t rows, n;
};
// The loss on the rows (the rest of the minibatch's columns from `mb`; the loss a scalar tensor
// outside any graph) with its statistics; writes log_probs [rows, n] and row_grads [rows, 3] for
// the gradient pass.
PpoLoss ppo_categorical_loss_rows(const PpoCategoricalRows& rows, const RolloutBuffer::Batch& mb, const PpoConfig& cfg,
                                  double clip, float* log_probs, float* row_grads);
// The gradients at the logits and the values (rows' logits and values unused), for an incoming
// gradient g.
void ppo_categorical_gradient_rows(const float* log_probs, const float* row_grads, const PpoCategoricalRows& rows,
                                   double ent_coef, double g, float* d_logits, float* d_values);

}  // namespace rlzoo
