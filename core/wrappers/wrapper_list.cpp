#include "core/wrappers/wrapper_list.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <map>
#include <mutex>

#include "core/wrappers/previous_action_reward.h"
#include "core/wrappers/wrappers.h"

namespace rlzoo {

namespace {

// The table, with core's own wrappers in it from the start (no registration call to forget).
// Envs are made on actor threads while a late registration may run, hence the mutex.
struct WrapperTable {
  std::mutex mutex;
  std::map<std::string, WrapperFactory> factories;

  WrapperTable() {
    factories["previous_action_reward"] = [](std::unique_ptr<Env> env, const YAML::Node& args,
                                             const ConfigContext& ctx) -> std::unique_ptr<Env> {
      if (args && !args.IsNull() && !(args.IsMap() && args.size() == 0))
        ctx.fail(args, "previous_action_reward takes no arguments");
      return std::make_unique<PreviousActionReward>(std::move(env));
    };
    factories["select_observation"] = [](std::unique_ptr<Env> env, const YAML::Node& args,
                                         const ConfigContext& ctx) -> std::unique_ptr<Env> {
      if (!args || !args.IsMap() || !args["indices"]) ctx.fail(args, "select_observation needs {indices: [...]}");
      return std::make_unique<SelectObservation>(std::move(env), args["indices"].as<std::vector<std::int64_t>>());
    };
  }
};

WrapperTable& table() {
  static WrapperTable* t = new WrapperTable;  // never destroyed: envs may outlive static destruction
  return *t;
}

}  // namespace

void register_wrapper(const std::string& name, WrapperFactory factory) {
  RLZOO_CHECK(static_cast<bool>(factory), "register_wrapper(" + name + ") without a factory");
  WrapperTable& t = table();
  std::lock_guard lock(t.mutex);
  if (!t.factories.emplace(name, std::move(factory)).second)
    throw UserError("wrapper '" + name + "' is registered twice");
}

bool wrapper_registered(const std::string& name) {
  WrapperTable& t = table();
  std::lock_guard lock(t.mutex);
  return t.factories.count(name) != 0;
}

std::vector<std::string> wrapper_names() {
  WrapperTable& t = table();
  std::lock_guard lock(t.mutex);
  std::vector<std::string> names;
  for (const auto& [name, factory] : t.factories) names.push_back(name);  // std::map: sorted
  return names;
}

std::unique_ptr<Env> apply_wrapper_list(std::unique_ptr<Env> env, const YAML::Node& list, const ConfigContext& ctx) {
  if (!list || list.IsNull()) return env;
  if (!list.IsSequence()) ctx.fail(list, "a list of wrapper names (or name: {arguments} maps)");
  for (std::size_t i = 0; i < list.size(); ++i) {
    const YAML::Node item = list[i];
    const ConfigContext at = ctx.item(i);
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
    WrapperFactory factory;
    {
      WrapperTable& t = table();
      std::lock_guard lock(t.mutex);
      if (auto it = t.factories.find(name); it != t.factories.end()) factory = it->second;
    }
    if (!factory) at.fail(item, fmt::format("unknown wrapper '{}' (known: {})", name, fmt::join(wrapper_names(), ", ")));
    env = factory(std::move(env), args && !args.IsNull() ? args : YAML::Node(), at.child(name));
    RLZOO_CHECK(env != nullptr, "wrapper factory " + name + " returned null");
  }
  return env;
}

}  // namespace rlzoo
