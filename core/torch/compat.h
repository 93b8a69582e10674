// The API differences between the two LibTorch builds rlzoo compiles against, in one place:
// Debian's LibTorch 1.13 (CPU, CI) and the LibTorch 2.x inside a PyTorch installation
// (scripts/cuda-build, CUDA). Code elsewhere calls these instead of the differing API.
#pragma once

#include <torch/torch.h>
#include <torch/version.h>

#include <sstream>
#include <string>
#include <type_traits>

namespace rlzoo {

// TORCH_VERSION_MAJOR * 100 + TORCH_VERSION_MINOR: 113 for 1.13, 211 for 2.11.
inline constexpr int kTorchVersion = TORCH_VERSION_MAJOR * 100 + TORCH_VERSION_MINOR;

namespace compat_detail {
// Optimizer::state() maps a parameter's TensorImpl to its state: keyed by the address printed
// as a string in LibTorch 1.x, by the pointer itself in 2.x. Deduced from the map's key type,
// so neither branch needs a version check.
template <class State>
typename State::key_type param_state_key(const torch::Tensor& param) {
  using Key = typename State::key_type;
  if constexpr (std::is_same_v<Key, std::string>) {
    std::ostringstream key;  // what c10::guts::to_string wrote
    key << param.unsafeGetTensorImpl();
    return key.str();
  } else {
    return static_cast<Key>(param.unsafeGetTensorImpl());
  }
}
}  // namespace compat_detail

// The optimiser's state for `param` (null before its first step).
inline const torch::optim::OptimizerParamState* optimizer_param_state(const torch::optim::Optimizer& optimizer,
                                                                      const torch::Tensor& param) {
  const auto& state = optimizer.state();
  const auto it = state.find(compat_detail::param_state_key<std::decay_t<decltype(state)>>(param));
  return it == state.end() ? nullptr : it->second.get();
}

// The optimiser's state for `param`, made by make() (a std::unique_ptr to a subclass of
// OptimizerParamState) where it has none yet, under the key the optimiser's own step() uses.
template <class Make>
torch::optim::OptimizerParamState& optimizer_param_state_or_make(torch::optim::Optimizer& optimizer,
                                                                  const torch::Tensor& param, Make&& make) {
  auto& state = optimizer.state();
  auto key = compat_detail::param_state_key<std::decay_t<decltype(state)>>(param);
  auto it = state.find(key);
  if (it == state.end()) it = state.insert_or_assign(std::move(key), make()).first;
  return *it->second;
}

}  // namespace rlzoo

// c10d's process groups (ProcessGroupGloo, ProcessGroupNCCL) derive from c10d::ProcessGroup in
// LibTorch 1.13 and from c10d::Backend in 2.x; both bases declare the collectives rlzoo calls
// (allreduce, broadcast). Declared here only: users include the c10d headers themselves.
namespace c10d {
class ProcessGroup;
class Backend;
}  // namespace c10d
namespace rlzoo {
using C10dProcessGroupBase = std::conditional_t<(kTorchVersion >= 200), c10d::Backend, c10d::ProcessGroup>;
}  // namespace rlzoo
