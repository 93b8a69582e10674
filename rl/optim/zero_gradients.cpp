#include "rl/optim/zero_gradients.h"

#include <torch/optim/optimizer.h>

#include <cstring>

namespace rlzoo {

void zero_gradients(torch::optim::Optimizer& optimizer) {
  for (auto& group : optimizer.param_groups())
    for (auto& p : group.params()) {
      auto& grad = p.mutable_grad();
      if (!grad.defined()) continue;
      if (!grad.requires_grad() && grad.device().is_cpu() && grad.scalar_type() == torch::kFloat32 &&
          grad.layout() == torch::kStrided && grad.is_contiguous()) {
        std::memset(grad.data_ptr<float>(), 0, static_cast<std::size_t>(grad.numel()) * sizeof(float));
      } else {
        grad.detach_();
        grad.zero_();
      }
    }
}

}  // namespace rlzoo
