#include "agents/export/policy_export.h"

namespace rlzoo {

std::vector<std::pair<std::string, torch::Tensor>> export_tensors(const torch::nn::Module& module) {
  std::vector<std::pair<std::string, torch::Tensor>> out;
  for (const auto& p : module.named_parameters()) out.emplace_back(p.key(), p.value().detach().clone());
  for (const auto& b : module.named_buffers()) out.emplace_back(b.key(), b.value().detach().clone());
  return out;
}

}  // namespace rlzoo
