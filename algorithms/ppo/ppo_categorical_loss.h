// PPO's minibatch loss for a Categorical policy as one autograd node: the log-probabilities,
// ratio, clipped surrogate, (clipped) value loss, entropy bonus and the logged statistics in
// one pass over the rows, and the gradients with respect to the logits and the values in one
// pass back. The same loss as ppo_loss()'s LibTorch operations (to float rounding; checked in
// tests/algorithms/ppo_categorical_loss_test.cpp), without the ~70 operations and autograd
// nodes that cost more than a small network's update itself (`rlzoo bench learner`).
#pragma once

#include "algorithms/ppo/ppo_config.h"
#include "algorithms/ppo/ppo_loss.h"
#include "core/torch/tensor.h"
#include "rl/buffers/rollout_buffer.h"

namespace rlzoo {

// Whether ppo_categorical_loss() takes these inputs: logits [B, n] and values [B] contiguous
// float32 CPU tensors, the minibatch's tensors on the CPU.
bool ppo_categorical_loss_applies(const torch::Tensor& logits, const torch::Tensor& values,
                                  const RolloutBuffer::Batch& mb);

// `logits` are the policy's raw outputs (before any mask; `mb.action_masks` applies as
// Categorical applies it). Statistics and losses are as ppo_loss() returns them.
PpoLoss ppo_categorical_loss(const torch::Tensor& logits, const torch::Tensor& values, const RolloutBuffer::Batch& mb,
                             const PpoConfig& cfg, double clip);

}  // namespace rlzoo
