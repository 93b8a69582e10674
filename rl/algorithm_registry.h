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

// The entry of agent class A, whose constructor is A(const AgentSetup&, args...) and which
// restores a checkpoint with restore(reader); Config documents its hyperparameters.
template <class A, class Config, class... Args>
AlgorithmEntry algorithm_entry(std::string description, AlgorithmCapabilities capabilities, Args... args) {
  return AlgorithmEntry{
      [=](const AgentSetup& s) -> std::unique_ptr<Agent> { return std::make_unique<A>(s, args...); },
      [=](const AgentSetup& s, const CheckpointReader& r) -> std::unique_ptr<Agent> {
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
