// The rows PPO's acting evaluator writes for each observation: [action (d floats), log-prob,
// value], the action drawn as ActionDistribution::sample() draws it (the same random numbers)
// and the log-prob as log_prob() computes it. Two ways to the same numbers: sampled_rows() from
// a forward pass's distribution and values, and PlainGaussianRows for a Gaussian policy on the
// fused path, without a tensor per step (acting on an env or four is dominated by LibTorch's
// per-operation cost; docs/performance.md).
#pragma once

#include <vector>

#include "core/torch/tensor.h"
#include "rl/nets/networks.h"

namespace rlzoo {

// [rows, d + 2] from `dist` and `values` [rows].
torch::Tensor sampled_rows(const ActionDistribution& dist, const torch::Tensor& values, std::int64_t d);

// sampled_rows(policy.forward(obs)) for `rows` float32 observations into `out` [rows, d + 2],
// the same bits, or false (nothing written, no random number drawn) where the policy cannot
// act without tensors (ActorCriticImpl::plain_heads) or is not Gaussian. Keeps its buffers, and
// LibTorch's exp(log_std) until log_std or the row count changes, between calls.
class PlainGaussianRows {
 public:
  bool operator()(const ActorCriticImpl& policy, const float* obs, std::int64_t rows, std::int64_t d, float* out);

 private:
  std::vector<float> scratch_, means_, values_, log_std_seen_;
  torch::Tensor noise_, std_dev_, inv_std_;
};

}  // namespace rlzoo
