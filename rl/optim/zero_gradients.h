// Optimizer::zero_grad without two LibTorch operations per parameter: gradients that are plain
// float32 CPU tensors outside any graph are cleared with memset, others as zero_grad clears
// them (detached, then zeroed). The same result; on small networks it is one of the costs that
// dispatch, not arithmetic, sets (`rlzoo bench learner`).
#pragma once

#include "core/torch/tensor.h"

namespace rlzoo {

void zero_gradients(torch::optim::Optimizer& optimizer);

}  // namespace rlzoo
