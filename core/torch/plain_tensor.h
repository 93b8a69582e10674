// Whether a tensor can be read and written as a plain array: defined, on the CPU, of `type`,
// strided and contiguous. The fused small-network paths (rl/nets/fused_mlp.h, rl/optim/,
// PPO's and DQN's losses) take such tensors in plain loops and leave every other tensor to
// LibTorch's operations.
#pragma once

#include "core/torch/tensor.h"

namespace rlzoo {

inline bool is_plain_cpu(const torch::Tensor& t, torch::ScalarType type) {
  return t.defined() && t.device().is_cpu() && t.scalar_type() == type && t.layout() == torch::kStrided &&
         t.is_contiguous();
}

}  // namespace rlzoo
