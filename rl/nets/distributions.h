// Action distributions written out (LibTorch's C++ API has no Categorical or Normal).
#pragma once

#include "core/torch/tensor.h"

namespace rlzoo {

// Categorical over the last dimension of `logits` [B, n]. Where `mask` [B, n] (bool) is
// given, masked-out actions get probability 0 (their logits are replaced by a large negative
// number, not -inf, so that entropy and gradients stay finite).
class Categorical {
 public:
  explicit Categorical(torch::Tensor logits, torch::Tensor mask = {});
  torch::Tensor sample() const;                      // [B] int64, from the default generator
  torch::Tensor mode() const;                        // [B] int64, most probable action
  torch::Tensor log_prob(const torch::Tensor& actions) const;  // [B]
  torch::Tensor entropy() const;                     // [B]
  const torch::Tensor& log_probs() const { return log_probs_; }  // normalised [B, n]
  // The logits as given (before the mask) and the mask (or undefined), for fused losses that
  // compute the log-probabilities themselves (algorithms/ppo/ppo_fused_loss.h).
  const torch::Tensor& logits() const { return logits_; }
  const torch::Tensor& mask() const { return mask_; }

 private:
  torch::Tensor logits_, mask_, log_probs_;
};

// Diagonal Gaussian: independent dimensions, log-probabilities summed over the last one.
class DiagGaussian {
 public:
  DiagGaussian(torch::Tensor mean, torch::Tensor log_std);
  torch::Tensor sample() const;                      // [B, d]
  torch::Tensor mode() const { return mean_; }
  torch::Tensor log_prob(const torch::Tensor& actions) const;  // [B]
  torch::Tensor entropy() const;                     // [B]
  const torch::Tensor& mean() const { return mean_; }
  const torch::Tensor& log_std() const { return log_std_; }

 private:
  torch::Tensor mean_, log_std_;
};

}  // namespace rlzoo
