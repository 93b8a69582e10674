// Algorithm id -> factory and capabilities. algorithms/ fills it (register_builtin_algorithms());
// rl/ finds algorithms through it and never includes algorithms/.
//
//   register_algorithm("ppo", algorithm_entry<PpoAgent, PpoConfig>("Proximal Policy Optimization", caps));
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "rl/agent.h"
#include "rl/algorithm_capabilities.h"
#include "rl/preset.h"
#include "core/checkpoint/reader.h"
#include "core/registry/registry.h"

namespace rlzoo {

struct AlgorithmEntry {
  // A fresh agent. Validates preset.hyperparams and the env's spaces (clear UserErrors).
  std::function<std::unique_ptr<Agent>(const AgentSetup&)> create;
  // An agent restored from a checkpoint written by its save(): create(setup) then restore.
  std::function<std::unique_ptr<Agent>(const AgentSetup&, const CheckpointReader&)> load;
  // Its hyperparameters (the `hyperparams:` keys): document_config<ItsConfig>(). Listed by
  // `rlzoo list --hyperparams` and docs/presets.md.
  std::function<ConfigDoc()> describe_hyperparams;
  std::string description;
  // What it supports (rl/algorithm_capabilities.h), checked against every preset before
  // the agent is built.
  AlgorithmCapabilities capabilities;
};

// The torch/BLAS threads an agent of this preset computes with (configure_threads(): the
// preset's torch_threads; BLAS the same where capabilities.blas_uses_torch_threads, else 1).
// Set before the agent is built, not only when it learns: the thread count picks a threaded
// BLAS's partition of a product, so initial weights made with another count (an orthogonal
// init's QR under PyPI LibTorch's MKL) differ in their last bits. `announce`: log the settings
// (learn() does; building an agent does not, as a command may be printing JSON).
void use_agent_threads(const PresetConfig& preset, const AlgorithmCapabilities& capabilities, bool announce);

// The entry of agent class A, whose constructor is A(const AgentSetup&, args...) and which
// restores a checkpoint with restore(reader); Config documents its hyperparameters.
template <class A, class Config, class... Args>
AlgorithmEntry algorithm_entry(std::string description, AlgorithmCapabilities capabilities, Args... args) {
  return AlgorithmEntry{
      [=](const AgentSetup& s) -> std::unique_ptr<Agent> {
        use_agent_threads(s.preset, capabilities, /*announce=*/false);
        return std::make_unique<A>(s, args...);
      },
      [=](const AgentSetup& s, const CheckpointReader& r) -> std::unique_ptr<Agent> {
        use_agent_threads(s.preset, capabilities, /*announce=*/false);
        auto agent = std::make_unique<A>(s, args...);
        agent->restore(r);
        return agent;
      },
      [] { return document_config<Config>(); }, std::move(description), std::move(capabilities)};
}

Registry<AlgorithmEntry>& algorithm_registry();
void register_algorithm(const std::string& id, AlgorithmEntry entry);

// Validates a preset YAML into an AgentSetup (does not build the agent): its keys, its algorithm
// and env ids, and what it asks of the algorithm against the algorithm's capabilities.
AgentSetup parse_preset(const YAML::Node& preset, const ConfigContext& ctx);

// The spec (spaces, limits) of the preset's env, made with its env_kwargs (validated).
EnvSpec preset_env_spec(const AgentSetup& setup);

}  // namespace rlzoo
