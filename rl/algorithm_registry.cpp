#include "rl/algorithm_registry.h"

#include <fmt/format.h>

#include <set>

#include "core/common/strings.h"
#include "core/config/schema.h"
#include "core/registry/env_registry.h"
#include "core/torch/threads.h"
#include "rl/timestep_cap.h"

namespace rlzoo {

Registry<AlgorithmEntry>& algorithm_registry() {
  static Registry<AlgorithmEntry> registry("algorithm");
  return registry;
}

void use_agent_threads(const PresetConfig& preset, const AlgorithmCapabilities& capabilities, bool announce) {
  const int threads = preset.torch_threads;
  configure_threads(threads, capabilities.blas_uses_torch_threads ? threads : 1, announce);
}

void register_algorithm(const std::string& id, AlgorithmEntry entry) { algorithm_registry().add(id, std::move(entry)); }

namespace {

// A key one section away from where it belongs (`learning_rate` at the top, `seed` under
// hyperparams) is named where it goes, before the sections are parsed (each section alone
// would only suggest its own keys).
void check_keys_in_their_section(const YAML::Node& preset, const ConfigContext& ctx) {
  if (!preset.IsMap()) return;
  std::set<std::string> top, hyper;
  for (const auto& f : document_config<PresetConfig>())
    if (f.key.find('.') == std::string::npos) top.insert(f.key);
  const YAML::Node algo = preset["algo"];
  if (algo && algo.IsScalar() && algorithm_registry().contains(algo.Scalar()))
    for (const auto& f : algorithm_registry().get(algo.Scalar()).describe_hyperparams())
      hyper.insert(f.key.substr(0, f.key.find('.')));
  const std::vector<std::string> top_keys(top.begin(), top.end());
  for (auto it = preset.begin(); it != preset.end(); ++it) {
    if (!it->first.IsScalar()) continue;
    const std::string key = it->first.Scalar();
    if (!top.count(key) && hyper.count(key))
      ctx.child(key).fail(it->first, fmt::format("unknown key here (did you mean 'hyperparams.{}'?); valid keys: {}",
                                                 key, join(top_keys)));
  }
  const YAML::Node h = preset["hyperparams"];
  if (!h || !h.IsMap() || hyper.empty()) return;
  const std::vector<std::string> hyper_keys(hyper.begin(), hyper.end());
  for (auto it = h.begin(); it != h.end(); ++it) {
    if (!it->first.IsScalar()) continue;
    const std::string key = it->first.Scalar();
    if (!hyper.count(key) && top.count(key))
      ctx.child("hyperparams").child(key).fail(
          it->first, fmt::format("unknown key here (did you mean '{}', a key of the preset's top level?); valid "
                                 "keys: {}",
                                 key, join(hyper_keys)));
  }
}

}  // namespace

AgentSetup parse_preset(const YAML::Node& preset, const ConfigContext& ctx) {
  check_keys_in_their_section(preset, ctx);
  AgentSetup setup{parse_config<PresetConfig>(preset, ctx), ctx};
  setup.preset.n_timesteps = capped_timesteps(setup.preset.n_timesteps, "n_timesteps");
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
