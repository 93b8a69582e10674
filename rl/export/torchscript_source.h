// TorchScript source text for an exported policy. LibTorch's C++ modules cannot be traced or
// scripted, so the network a PolicyExport describes is written out as TorchScript methods
// that repeat act()'s operations one for one (same ATen ops, same order, same dtypes), over
// flat attributes holding the trained tensors. torchscript_export.h compiles and saves it.
//
// The tensors keep the C++ module's names with '.' replaced by '_' ("pi_trunk.layers.0.weight"
// -> pi_trunk_layers_0_weight). Every tensor of the network must be used by the generated
// code (log_std excepted), so a network whose structure the generator does not know fails here
// instead of exporting something that acts differently.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/torch/tensor.h"
#include "rl/export/policy_export.h"

namespace rlzoo {

struct TorchScriptPolicy {
  struct Method {
    std::string signature;  // "forward(obs: Tensor) -> Tensor"
    std::string doc;        // what it takes and returns, one line
  };
  std::string source;  // the methods, for torch::jit::Module::define
  // Attribute name -> tensor: the network's (parameters), the normaliser's and the action
  // bounds (buffers).
  std::vector<std::pair<std::string, torch::Tensor>> parameters, buffers;
  std::vector<Method> methods;  // the public methods
  bool recurrent = false;
  bool dict_observations = false;  // obs is a List[Tensor], one per Dict field in order
};

// Throws UserError for spaces or options it cannot write out (naming them), RLZOO_CHECK
// failures for tensors that do not match the described network.
TorchScriptPolicy generate_torchscript_policy(const PolicyExport& policy);

}  // namespace rlzoo
