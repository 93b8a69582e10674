// The env registry: id -> factory + metadata, as Gymnasium's registry.
//
//   register_builtin_envs();                         // envs/builtin.h, once at start-up
//   auto env = make_env("CartPole-v1");               // with its registered time limit
//   auto env = make_env("Pendulum-v1", kwargs_yaml);  // keyword arguments, validated
//
// Registering an env of your own (docs/custom-env.md): one line, usually with env_entry():
//
//   rlzoo::register_env("Corridor-v0", rlzoo::env_entry<Corridor>(100, 9.0, "Walk to the end"));
//   rlzoo::register_env("Maze-v0", rlzoo::env_entry<Maze, MazeConfig>(200, std::nullopt, "..."));
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <yaml-cpp/yaml.h>

#include "core/config/context.h"
#include "core/config/schema.h"
#include "core/env/env.h"
#include "core/registry/registry.h"

namespace rlzoo {

struct EnvEntry {
  // Builds the env from keyword arguments (a YAML map, possibly null). The factory validates
  // the arguments and reports errors through ctx (file/line/key).
  std::function<std::unique_ptr<Env>(const YAML::Node& kwargs, const ConfigContext& ctx)> factory;
  std::int64_t max_episode_steps = 0;
  std::optional<double> reward_threshold{};
  std::string description{};
  // The keyword arguments the factory accepts, with the defaults it applies (env_entry() fills
  // it; `rlzoo env info` and docs/presets.md list them); an empty list: it takes none. Left
  // unset, the env shows as undocumented in docs/presets.md (tests/cli/docs_test.cpp fails).
  std::function<ConfigDoc()> describe_kwargs{};
  // The env does not depend on its seed (a fixed start and deterministic rules, as the grid
  // worlds): `rlzoo env check` then skips its check that two seeds give different trajectories.
  bool deterministic = false;
};

Registry<EnvEntry>& env_registry();

// The keyword-argument struct of an env that takes none: any key given is an error.
struct NoKwargs {
  static void describe(Fields<NoKwargs>&) {}
};

// The entry of an env whose constructor takes its validated keyword-argument struct Config
// (a struct with describe(), see core/config/schema.h), or nothing when Config is NoKwargs.
// max_episode_steps: the time limit make_env() applies (0: none); reward_threshold: the score
// at which the env counts as solved (shown by `rlzoo env info`, used by evaluations).
template <class E, class Config = NoKwargs>
EnvEntry env_entry(std::int64_t max_episode_steps, std::optional<double> reward_threshold, std::string description) {
  EnvEntry e;
  e.factory = [](const YAML::Node& kwargs, const ConfigContext& ctx) -> std::unique_ptr<Env> {
    Config config = parse_config<Config>(kwargs, ctx);
    if constexpr (std::is_same_v<Config, NoKwargs>) {
      (void)config;
      return std::make_unique<E>();
    } else {
      return std::make_unique<E>(std::move(config));
    }
  };
  e.max_episode_steps = max_episode_steps;
  e.reward_threshold = reward_threshold;
  e.description = std::move(description);
  e.describe_kwargs = [] { return document_config<Config>(); };
  return e;
}

void register_env(const std::string& id, EnvEntry entry);

// Creates a registered env with its time limit. kwargs: keyword arguments (null = defaults).
std::unique_ptr<Env> make_env(const std::string& id, const YAML::Node& kwargs = YAML::Node(),
                              const ConfigContext& ctx = ConfigContext());

}  // namespace rlzoo
