#include "rl/algorithm_registry.h"

#include "core/registry/env_registry.h"

namespace rlzoo {

Registry<AlgorithmEntry>& algorithm_registry() {
  static Registry<AlgorithmEntry> registry("algorithm");
  return registry;
}

void register_algorithm(const std::string& id, AlgorithmEntry entry) { algorithm_registry().add(id, std::move(entry)); }

AgentSetup parse_preset(const YAML::Node& preset, const ConfigContext& ctx) {
  AgentSetup setup{parse_config<PresetConfig>(preset, ctx), ctx};
  // Unknown ids are reported against the preset's lines.
  auto check_id = [&](const char* key, bool known, const std::function<void()>& lookup) {
    if (known) return;
    try {
      lookup();
    } catch (const UserError& e) {
      ctx.child(key).fail(preset[key], e.what());
    }
  };
  check_id("algo", algorithm_registry().contains(setup.preset.algo), [&] { algorithm_registry().get(setup.preset.algo); });
  check_id("env", env_registry().contains(setup.preset.env), [&] { env_registry().get(setup.preset.env); });
  const AlgorithmCapabilities& caps = algorithm_registry().get(setup.preset.algo).capabilities;
  check_preset_capabilities(setup, preset, setup.preset.algo, caps);
  check_env_spaces(setup, preset, setup.preset.algo, caps, preset_env_spec(setup));
  return setup;
}

EnvSpec preset_env_spec(const AgentSetup& setup) {
  return make_env(setup.preset.env, setup.preset.env_kwargs, setup.ctx.child("env_kwargs"))->spec();
}

}  // namespace rlzoo
