#include "core/registry/env_registry.h"

#include "core/common/error.h"
#include "core/wrappers/wrapper_list.h"

#include <fmt/format.h>

namespace rlzoo {

Registry<EnvEntry>& env_registry() {
  static Registry<EnvEntry> registry("env");
  return registry;
}

void register_env(const std::string& id, EnvEntry entry) { env_registry().add(id, std::move(entry)); }

std::unique_ptr<Env> make_env(const std::string& id, const YAML::Node& kwargs, const ConfigContext& ctx) {
  const EnvEntry& e = env_registry().get(id);
  // `wrappers:` belongs to make_env, not to the env (core/wrappers/wrapper_list.h).
  // YAML::Node's operator= writes through to the node it refers to, so the nodes are rebound
  // with reset(): the caller's kwargs (often a saved preset's) must stay as they are.
  YAML::Node env_kwargs, wrappers;
  env_kwargs.reset(kwargs);
  if (kwargs && kwargs.IsMap() && kwargs["wrappers"]) {
    YAML::Node rest = YAML::Clone(kwargs);
    wrappers.reset(kwargs["wrappers"]);  // the caller's node (read only): a clone has no marks for errors
    rest.remove("wrappers");
    env_kwargs.reset(rest.size() == 0 ? YAML::Node() : rest);
  }
  auto env = e.factory(env_kwargs, ctx);
  RLZOO_CHECK(env != nullptr, "factory of " + id + " returned null");
  // Users register their own envs: a mismatch is their error, named, not an internal one.
  if (env->id() != id)
    throw UserError(fmt::format("env registered as '{}' reports the id '{}' in its EnvSpec: make them the same", id,
                                env->id()));
  env->set_max_episode_steps(e.max_episode_steps);
  env->set_reward_threshold(e.reward_threshold);
  return apply_wrapper_list(std::move(env), wrappers, ctx.child("wrappers"));
}

}  // namespace rlzoo
