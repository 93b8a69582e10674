// Wrappers named in a preset: `env_kwargs: {wrappers: [previous_action_reward,
// {select_observation: {indices: [0, 2]}}]}` wraps the env in that order (the first innermost),
// for any registered env. make_env() takes the `wrappers` key out of the kwargs before the env
// sees them.
//
// Names come from a process-wide table. core registers its own wrappers
// (previous_action_reward, core/wrappers/previous_action_reward.h; select_observation
// {indices}, core/wrappers/wrappers.h); higher layers add theirs with register_wrapper() at
// start-up, next to register_builtin_envs() (e.g. record_episodes from
// rlzoo::data::register_dataset_wrappers(), datasets/record_episodes.h).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>
#include <yaml-cpp/yaml.h>

#include "core/config/config_doc.h"
#include "core/config/context.h"
#include "core/env/env.h"

namespace rlzoo {

// Builds the wrapper around env. args: the wrapper's arguments (the value of `name: {args}`;
// a null node for a bare name). The factory validates them and reports errors through ctx,
// which names the list item (e.g. "env_kwargs.wrappers[1]").
using WrapperFactory =
    std::function<std::unique_ptr<Env>(std::unique_ptr<Env> env, const YAML::Node& args, const ConfigContext& ctx)>;

// What docs/presets.md says of a wrapper: one line on what it does, and its arguments
// (document_config<ArgsStruct>(), core/config/schema.h; empty: it takes none). A wrapper
// registered without a description shows as undocumented there.
struct WrapperDoc {
  std::string description;
  ConfigDoc arguments;
};

// Adds a named wrapper. Throws UserError when the name is already registered (two components
// claiming one name). Thread-safe, but meant for start-up.
void register_wrapper(const std::string& name, WrapperFactory factory, WrapperDoc doc = {});
bool wrapper_registered(const std::string& name);
// The doc given at registration; throws UserError for an unknown name.
WrapperDoc wrapper_doc(const std::string& name);
// Every registered name, sorted.
std::vector<std::string> wrapper_names();

// The wrappers of `list` (a YAML sequence of names or one-key maps name: {args}) around env.
// Unknown names (the error lists the registered ones) and bad arguments are UserErrors naming
// the key.
std::unique_ptr<Env> apply_wrapper_list(std::unique_ptr<Env> env, const YAML::Node& list, const ConfigContext& ctx);

}  // namespace rlzoo
