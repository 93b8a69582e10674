// Where a learner's networks, optimiser state and training batches live (a preset's `device`,
// core/config/device_name.h). Envs always step on the CPU: observations cross to the device
// when the learner acts or trains, and actions, values and log-probabilities cross back.
//
//   const torch::Device device = resolve_device(setup.preset.device);   // UserError if absent
//   net->to(device);
//   auto q = net->forward(to_device(observation_tensors(...), device)).cpu();
#pragma once

#include <torch/torch.h>

#include <string>
#include <vector>

namespace rlzoo {

// Whether this LibTorch was built with CUDA (whether or not this machine has a GPU). Not
// torch::hasCUDA(), which in LibTorch 2.x answers whether a GPU is usable.
bool cuda_compiled();

// Whether this LibTorch has c10d's NCCL backend (a CUDA build's USE_C10D_NCCL): what learner
// groups on CUDA average over (distributed/c10d_reducer.h) and what `rlzoo info` reports.
bool nccl_compiled();
// Whether this LibTorch was built with CUDA and sees at least one GPU.
bool cuda_usable();
// Number of CUDA devices this process sees (0 without CUDA).
int cuda_device_count();

// The device a preset's `device` names. "auto" is cuda where cuda_usable(), else cpu. Throws
// UserError for a malformed name, for cuda when this LibTorch has no CUDA or sees no GPU, and
// for cuda:N past the last GPU, saying which and what there is.
torch::Device resolve_device(const std::string& name);

// Moves each tensor to `device` (no copy when it is there already).
std::vector<torch::Tensor> to_device(std::vector<torch::Tensor> tensors, const torch::Device& device);

// The device of a module's first parameter or buffer (cpu for a module without any).
torch::Device module_device(const torch::nn::Module& module);

}  // namespace rlzoo
