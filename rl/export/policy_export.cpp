#include "rl/export/policy_export.h"

namespace rlzoo {

std::vector<std::pair<std::string, torch::Tensor>> export_tensors(const torch::nn::Module& module) {
  // On the CPU whatever the agent's device: an exported policy loads anywhere, and
  // module.to(device) moves it where its user wants it.
  auto cpu_copy = [](const torch::Tensor& t) { return t.is_cpu() ? t.detach().clone() : t.detach().cpu(); };
  std::vector<std::pair<std::string, torch::Tensor>> out;
  for (const auto& p : module.named_parameters()) out.emplace_back(p.key(), cpu_copy(p.value()));
  for (const auto& b : module.named_buffers()) out.emplace_back(b.key(), cpu_copy(b.value()));
  return out;
}

PolicyExport policy_export_of(PolicyExport::Network network, const Space& observation_space,
                              const Space& action_space, const PolicyConfig& policy, const torch::nn::Module& module) {
  PolicyExport e;
  e.network = network;
  e.observation_space = observation_space;
  e.action_space = action_space;
  e.policy = policy;
  e.tensors = export_tensors(module);
  return e;
}

}  // namespace rlzoo
