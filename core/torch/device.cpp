#include "core/torch/device.h"

#include <ATen/detail/CUDAHooksInterface.h>
#include <fmt/format.h>

#include "core/common/error.h"
#include "core/config/device_name.h"

namespace rlzoo {

bool cuda_compiled() { return at::detail::getCUDAHooks().hasCUDART(); }

bool nccl_compiled() {
#ifdef USE_C10D_NCCL
  return true;
#else
  return false;
#endif
}

bool cuda_usable() { return cuda_compiled() && torch::cuda::is_available(); }

int cuda_device_count() { return cuda_usable() ? static_cast<int>(torch::cuda::device_count()) : 0; }

torch::Device resolve_device(const std::string& name) {
  const auto parsed = parse_device_name(name);
  if (!parsed) throw UserError(*device_name_problem(name));
  switch (parsed->kind) {
    case DeviceName::Kind::cpu:
      return torch::kCPU;
    case DeviceName::Kind::automatic:
      return cuda_usable() ? torch::Device(torch::kCUDA) : torch::Device(torch::kCPU);
    case DeviceName::Kind::cuda:
      break;
  }
  if (!cuda_compiled())
    throw UserError(fmt::format("device '{}' asked for, but this LibTorch was built without CUDA (Debian's LibTorch is "
                                "CPU-only; scripts/cuda-build builds rlzoo against PyPI's CUDA LibTorch); "
                                "use device: cpu",
                                name));
  const int count = cuda_device_count();
  if (count == 0)
    throw UserError(fmt::format("device '{}' asked for, but this LibTorch sees no CUDA GPU (check the driver and "
                                "CUDA_VISIBLE_DEVICES); use device: cpu",
                                name));
  if (parsed->index >= count)
    throw UserError(fmt::format("device '{}' asked for, but this machine has {} CUDA GPU{} (cuda:0{})", name, count,
                                count == 1 ? "" : "s", count == 1 ? "" : fmt::format(" to cuda:{}", count - 1)));
  return parsed->index < 0 ? torch::Device(torch::kCUDA) : torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(parsed->index));
}

std::vector<torch::Tensor> to_device(std::vector<torch::Tensor> tensors, const torch::Device& device) {
  for (auto& t : tensors)
    if (t.defined() && t.device() != device) t = t.to(device);
  return tensors;
}

torch::Device module_device(const torch::nn::Module& module) {
  for (const auto& p : module.parameters()) return p.device();
  for (const auto& b : module.buffers()) return b.device();
  return torch::kCPU;
}

}  // namespace rlzoo
