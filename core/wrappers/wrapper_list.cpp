#include "core/wrappers/wrapper_list.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/wrappers/previous_action_reward.h"
#include "core/wrappers/wrappers.h"

namespace rlzoo {

const std::vector<std::string>& wrapper_names() {
  static const std::vector<std::string> names{"previous_action_reward", "select_observation"};
  return names;
}

std::unique_ptr<Env> apply_wrapper_list(std::unique_ptr<Env> env, const YAML::Node& list, const ConfigContext& ctx) {
  if (!list || list.IsNull()) return env;
  if (!list.IsSequence()) ctx.fail(list, "a list of wrapper names (or name: {arguments} maps)");
  for (std::size_t i = 0; i < list.size(); ++i) {
    const YAML::Node item = list[i];
    const ConfigContext at = ctx.child(fmt::format("[{}]", i));
    std::string name;
    YAML::Node args;
    if (item.IsScalar()) {
      name = item.as<std::string>();
    } else if (item.IsMap() && item.size() == 1) {
      name = item.begin()->first.as<std::string>();
      args = item.begin()->second;
    } else {
      at.fail(item, "a wrapper name or a one-key map name: {arguments}");
    }
    if (name == "previous_action_reward") {
      env = std::make_unique<PreviousActionReward>(std::move(env));
    } else if (name == "select_observation") {
      if (!args || !args["indices"]) at.fail(item, "select_observation needs {indices: [...]}");
      env = std::make_unique<SelectObservation>(std::move(env), args["indices"].as<std::vector<std::int64_t>>());
    } else {
      at.fail(item, fmt::format("unknown wrapper '{}' (known: {})", name, fmt::join(wrapper_names(), ", ")));
    }
  }
  return env;
}

}  // namespace rlzoo
