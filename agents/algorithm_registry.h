// Algorithm id -> factory. algorithms/ fills it (register_builtin_algorithms()); agents/
// finds algorithms through it and never includes algorithms/.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "agents/agent.h"
#include "agents/preset.h"
#include "core/checkpoint/reader.h"
#include "core/registry/registry.h"

namespace rlzoo {

// What a factory gets: the validated preset and where it came from (for errors in
// preset.hyperparams, use ctx.child("hyperparams")).
struct AgentSetup {
  PresetConfig preset;
  ConfigContext ctx;
};

struct AlgorithmEntry {
  // A fresh agent. Validates preset.hyperparams and the env's spaces (clear UserErrors).
  std::function<std::unique_ptr<Agent>(const AgentSetup&)> create;
  // An agent restored from a checkpoint written by its save(): create(setup) then restore.
  std::function<std::unique_ptr<Agent>(const AgentSetup&, const CheckpointReader&)> load;
  // Its hyperparameters (the `hyperparams:` keys): document_config<ItsConfig>(). Listed by
  // `rlzoo list --hyperparams` and docs/presets.md.
  std::function<ConfigDoc()> describe_hyperparams;
  std::string description;
  // Its agents implement Agent::export_policy() (`rlzoo export` lists these when refusing one).
  bool exportable = false;
};

Registry<AlgorithmEntry>& algorithm_registry();
void register_algorithm(const std::string& id, AlgorithmEntry entry);

// Validates a preset YAML into an AgentSetup (does not build the agent).
AgentSetup parse_preset(const YAML::Node& preset, const ConfigContext& ctx);

// The spec (spaces, limits) of the preset's env, made with its env_kwargs (validated).
EnvSpec preset_env_spec(const AgentSetup& setup);

}  // namespace rlzoo
