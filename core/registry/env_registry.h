// The env registry: id -> factory + metadata, as Gymnasium's registry.
//
//   register_builtin_envs();                         // envs/builtin.h, once at start-up
//   auto env = make_env("CartPole-v1");               // with its registered time limit
//   auto env = make_env("Pendulum-v1", kwargs_yaml);  // keyword arguments, validated
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <yaml-cpp/yaml.h>

#include "core/config/context.h"
#include "core/env/env.h"
#include "core/registry/registry.h"

namespace rlzoo {

struct EnvEntry {
  // Builds the env from keyword arguments (a YAML map, possibly null). The factory validates
  // the arguments and reports errors through ctx (file/line/key).
  std::function<std::unique_ptr<Env>(const YAML::Node& kwargs, const ConfigContext& ctx)> factory;
  std::int64_t max_episode_steps = 0;
  std::optional<double> reward_threshold;
  std::string description;
};

Registry<EnvEntry>& env_registry();

void register_env(const std::string& id, EnvEntry entry);

// Creates a registered env with its time limit. kwargs: keyword arguments (null = defaults).
std::unique_ptr<Env> make_env(const std::string& id, const YAML::Node& kwargs = YAML::Node(),
                              const ConfigContext& ctx = ConfigContext());

}  // namespace rlzoo
