// Wrappers named in a preset: `env_kwargs: {wrappers: [previous_action_reward,
// {select_observation: {indices: [0, 2]}}]}` wraps the env in that order (the first innermost),
// for any registered env. make_env() takes the `wrappers` key out of the kwargs before the env
// sees them. Known names: previous_action_reward (core/wrappers/previous_action_reward.h),
// select_observation {indices} (core/wrappers/wrappers.h).
#pragma once

#include <memory>
#include <string>
#include <vector>
#include <yaml-cpp/yaml.h>

#include "core/config/context.h"
#include "core/env/env.h"

namespace rlzoo {

// The wrappers of `list` (a YAML sequence of names or one-key maps name: {args}) around env.
// Unknown names and bad arguments are UserErrors naming the key.
std::unique_ptr<Env> apply_wrapper_list(std::unique_ptr<Env> env, const YAML::Node& list, const ConfigContext& ctx);
const std::vector<std::string>& wrapper_names();

}  // namespace rlzoo
