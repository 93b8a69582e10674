// LibTorch state <-> checkpoint file bytes (see core/checkpoint/writer.h, reader.h).
//
//   writer.add("model.pt", save_module(*policy));
//   writer.add("optim.pt", save_optimizer(optimizer));
//   writer.add("rng.pt", save_generator_state());
//   ...
//   load_module(*policy, reader, "model.pt");
//
// The bytes are LibTorch's own archive format (OutputArchive::save_to), i.e. what
// torch::save(x, path) would have written, so files stay readable by torch::load. The load
// functions check what LibTorch does not (torch::load silently replaces a parameter by one of
// another shape) and turn every LibTorch error into a rlzoo::UserError that names the blob:
// "<checkpoint dir>/model.pt: cannot load into the module: parameter '0.weight' has shape
// [8, 4] in the checkpoint but [16, 4] in the module".
#pragma once

#include <map>
#include <string>
#include <string_view>

#include <torch/torch.h>

#include "core/checkpoint/reader.h"

namespace rlzoo {

using TensorMap = std::map<std::string, torch::Tensor>;

// ---- modules: every registered parameter and buffer, recursively (torch::save semantics) ----
// Throws UserError naming the parameter when one holds NaN or Inf (a diverged model is not saved).
std::string save_module(const torch::nn::Module& module);
// Checks first that the blob holds exactly the module's parameters, buffers and submodules
// with the same shapes and dtypes; on any mismatch throws UserError listing them and leaves
// the module unchanged. `blob` names the bytes in messages.
void load_module(torch::nn::Module& module, std::string_view bytes, std::string_view blob);
void load_module(torch::nn::Module& module, const CheckpointReader& reader, std::string_view name);

// ---- optimizers: param groups (options such as lr) and per-parameter state ----
// The optimizer must be constructed over the same parameters, in the same order, as the saved
// one. Per-parameter state of Adam, AdamW, SGD, RMSprop and Adagrad is checked against the
// parameter shapes. On error throws UserError and restores the optimizer's previous state.
std::string save_optimizer(const torch::optim::Optimizer& optimizer);
void load_optimizer(torch::optim::Optimizer& optimizer, std::string_view bytes, std::string_view blob);
void load_optimizer(torch::optim::Optimizer& optimizer, const CheckpointReader& reader, std::string_view name);

// ---- named tensors (normaliser statistics, schedules, ...) ----
// Keys must be non-empty. Tensors are stored detached, on their device as saved; loading
// gives them back on the CPU.
std::string save_tensors(const TensorMap& tensors);
TensorMap load_tensors(std::string_view bytes, std::string_view blob);
TensorMap load_tensors(const CheckpointReader& reader, std::string_view name);

// ---- random generators (default: the process-wide CPU generator torch::rand etc. use) ----
// The state is read/written under the generator's mutex. After load_generator_state the
// generator continues exactly where the saved one was.
std::string save_generator_state(at::Generator generator = at::detail::getDefaultCPUGenerator());
void load_generator_state(std::string_view bytes, std::string_view blob,
                          at::Generator generator = at::detail::getDefaultCPUGenerator());
void load_generator_state(const CheckpointReader& reader, std::string_view name,
                          at::Generator generator = at::detail::getDefaultCPUGenerator());

}  // namespace rlzoo
