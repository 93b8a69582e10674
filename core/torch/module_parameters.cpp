#include "core/torch/module_parameters.h"

#include "core/common/error.h"

namespace rlzoo {

namespace {
std::vector<torch::Tensor> state_tensors(const torch::nn::Module& module) {
  std::vector<torch::Tensor> out = module.parameters();
  for (const auto& b : module.buffers()) out.push_back(b);
  return out;
}
}  // namespace

ParameterSnapshot snapshot_module(const torch::nn::Module& module) {
  torch::NoGradGuard no_grad;
  ParameterSnapshot s;
  // On the CPU, where actor replicas run: a learner on a GPU copies its weights off the device
  // once per publish rather than once per replica.
  for (const auto& t : state_tensors(module)) s.tensors.push_back(t.is_cpu() ? t.detach().clone() : t.detach().cpu());
  return s;
}

void load_snapshot(torch::nn::Module& module, const ParameterSnapshot& snapshot) {
  torch::NoGradGuard no_grad;
  auto dst = state_tensors(module);
  RLZOO_CHECK(dst.size() == snapshot.tensors.size(), "load_snapshot: the snapshot is of another architecture");
  for (std::size_t i = 0; i < dst.size(); ++i) {
    RLZOO_CHECK(dst[i].sizes() == snapshot.tensors[i].sizes(), "load_snapshot: tensor shapes differ");
    dst[i].copy_(snapshot.tensors[i]);
  }
}

}  // namespace rlzoo
