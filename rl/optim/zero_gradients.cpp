#include "rl/optim/zero_gradients.h"

#include <torch/optim/optimizer.h>

#include <cstring>

#include "core/torch/plain_tensor.h"

namespace rlzoo {

void zero_gradients(torch::optim::Optimizer& optimizer) {
  for (auto& group : optimizer.param_groups())
    for (auto& p : group.params()) {
      auto& grad = p.mutable_grad();
      if (!grad.defined()) continue;
      if (!grad.requires_grad() && is_plain_cpu(grad, torch::kFloat32)) {
        std::memset(grad.data_ptr<float>(), 0, static_cast<std::size_t>(grad.numel()) * sizeof(float));
      } else {
        grad.detach_();
        grad.zero_();
      }
    }
}

}  // namespace rlzoo
