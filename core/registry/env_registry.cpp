#include "core/registry/env_registry.h"

#include <fmt/format.h>

namespace rlzoo {

Registry<EnvEntry>& env_registry() {
  static Registry<EnvEntry> registry("env");
  return registry;
}

void register_env(const std::string& id, EnvEntry entry) { env_registry().add(id, std::move(entry)); }

std::unique_ptr<Env> make_env(const std::string& id, const YAML::Node& kwargs, const ConfigContext& ctx) {
  const EnvEntry& e = env_registry().get(id);
  auto env = e.factory(kwargs, ctx);
  RLZOO_CHECK(env != nullptr, "factory of " + id + " returned null");
  RLZOO_CHECK(env->id() == id, fmt::format("factory of {} built env {}", id, env->id()));
  env->set_max_episode_steps(e.max_episode_steps);
  env->set_reward_threshold(e.reward_threshold);
  return env;
}

}  // namespace rlzoo
