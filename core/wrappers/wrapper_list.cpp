#include "core/wrappers/wrapper_list.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <map>
#include <mutex>

#include "core/config/schema.h"
#include "core/wrappers/previous_action_reward.h"
#include "core/wrappers/wrappers.h"

namespace rlzoo {

namespace {

struct SelectObservationArgs {
  std::vector<std::int64_t> indices;
  static void describe(Fields<SelectObservationArgs>& f) {
    f("indices", &SelectObservationArgs::indices, "entries of the flattened observation to keep, in this order",
      Required{}, Bound::at_least(0));
  }
};

// The table, with core's own wrappers in it from the start (no registration call to forget).
// Envs are made on actor threads while a late registration may run, hence the mutex.
struct WrapperTable {
  struct Entry {
    WrapperFactory factory;
    WrapperDoc doc;
  };
  std::mutex mutex;
  std::map<std::string, Entry> entries;

  WrapperTable() {
    entries["previous_action_reward"] = {
        [](std::unique_ptr<Env> env, const YAML::Node& args, const ConfigContext& ctx) -> std::unique_ptr<Env> {
          if (args && !args.IsNull() && !(args.IsMap() && args.size() == 0))
            ctx.fail(args, "previous_action_reward takes no arguments");
          return std::make_unique<PreviousActionReward>(std::move(env));
        },
        {"Appends the previous action (one-hot for Discrete) and reward to a float Box observation, as RL^2's "
         "recurrent policies see them (core/wrappers/previous_action_reward.h)",
         {}}};
    entries["select_observation"] = {
        [](std::unique_ptr<Env> env, const YAML::Node& args, const ConfigContext& ctx) -> std::unique_ptr<Env> {
          const auto a = parse_config<SelectObservationArgs>(args, ctx);
          return std::make_unique<SelectObservation>(std::move(env), a.indices);
        },
        {"Keeps some entries of a Box observation, e.g. positions without velocities (core/wrappers/wrappers.h)",
         document_config<SelectObservationArgs>()}};
  }
};

WrapperTable& table() {
  static WrapperTable* t = new WrapperTable;  // never destroyed: envs may outlive static destruction
  return *t;
}

}  // namespace

void register_wrapper(const std::string& name, WrapperFactory factory, WrapperDoc doc) {
  RLZOO_CHECK(static_cast<bool>(factory), "register_wrapper(" + name + ") without a factory");
  WrapperTable& t = table();
  std::lock_guard lock(t.mutex);
  if (!t.entries.emplace(name, WrapperTable::Entry{std::move(factory), std::move(doc)}).second)
    throw UserError("wrapper '" + name + "' is registered twice");
}

bool wrapper_registered(const std::string& name) {
  WrapperTable& t = table();
  std::lock_guard lock(t.mutex);
  return t.entries.count(name) != 0;
}

WrapperDoc wrapper_doc(const std::string& name) {
  WrapperTable& t = table();
  std::lock_guard lock(t.mutex);
  auto it = t.entries.find(name);
  if (it == t.entries.end()) throw UserError("unknown wrapper '" + name + "'");
  return it->second.doc;
}

std::vector<std::string> wrapper_names() {
  WrapperTable& t = table();
  std::lock_guard lock(t.mutex);
  std::vector<std::string> names;
  for (const auto& [name, entry] : t.entries) names.push_back(name);  // std::map: sorted
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
      if (auto it = t.entries.find(name); it != t.entries.end()) factory = it->second.factory;
    }
    if (!factory) at.fail(item, fmt::format("unknown wrapper '{}' (known: {})", name, fmt::join(wrapper_names(), ", ")));
    env = factory(std::move(env), args && !args.IsNull() ? args : YAML::Node(), at.child(name));
    RLZOO_CHECK(env != nullptr, "wrapper factory " + name + " returned null");
  }
  return env;
}

}  // namespace rlzoo
