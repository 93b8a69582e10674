#include "rl/runtime/fleet_role.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "rl/agent.h"
#include "core/common/crc32c.h"

namespace rlzoo {

namespace {

std::string emit(const YAML::Node& node) {
  if (!node || node.IsNull()) return "~";
  YAML::Emitter e;
  e << YAML::Flow << node;
  return e.c_str();
}

}  // namespace

FleetSpec fleet_spec(const Agent& agent, const ActorRole& role) {
  const YAML::Node cfg = agent.config();
  FleetSpec spec;
  spec.shape = role.shape;
  spec.on_policy = role.on_policy;
  spec.observation_space = agent.env_spec().observation_space;
  spec.round_size = agent.preset().runtime.actors;
  YAML::Emitter e;
  e << cfg;
  spec.preset_yaml = e.c_str();
  // What both ends must agree on for a trajectory to mean the same thing: the algorithm and its
  // policy network, the env and its spaces, and the trajectory's layout. Learning-rate-like
  // settings may differ (actors do not use them).
  const EnvSpec& env = agent.env_spec();
  const std::string canonical = fmt::format(
      "algo={}|env={}|env_kwargs={}|obs={}|act={}|mask={}|policy={}|T={}|M={}|obs_bytes={}|action_bytes={}|"
      "extras={}|mask_size={}|on_policy={}",
      agent.algorithm(), agent.preset().env, emit(agent.preset().env_kwargs), env.observation_space.describe(),
      env.action_space.describe(), env.has_action_mask, emit(cfg["hyperparams"]["policy"]), role.shape.num_steps,
      role.shape.num_envs, role.shape.obs_bytes, role.shape.action_bytes, role.shape.num_extras,
      role.shape.mask_size, role.on_policy);
  const std::uint32_t a = crc32c(canonical.data(), canonical.size());
  const std::uint32_t b = crc32c(canonical.data(), canonical.size(), 0x9e3779b9u);
  spec.spec_hash = fmt::format("{:08x}{:08x}", a, b);
  return spec;
}

}  // namespace rlzoo
