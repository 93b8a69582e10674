#include "apps/replay.h"

#include "apps/json_lines.h"

#include <fmt/format.h>
#include <iostream>
#include <string>
#include <vector>

#include "core/registry/env_registry.h"

namespace rlzoo::cli {

namespace {

// Observation values as doubles (JSON numbers), whatever the Box dtype.
nlohmann::json obs_to_json(const Space& space, ConstBytes obs) {
  nlohmann::json out = nlohmann::json::array();
  switch (space.dtype()) {
    case DType::Float32: for (float v : as_span<float>(obs)) out.push_back(static_cast<double>(v)); break;
    case DType::Float64: for (double v : as_span<double>(obs)) out.push_back(v); break;
    case DType::Int64: for (auto v : as_span<std::int64_t>(obs)) out.push_back(v); break;
    case DType::Int32: for (auto v : as_span<std::int32_t>(obs)) out.push_back(v); break;
    case DType::UInt8: for (auto v : as_span<std::uint8_t>(obs)) out.push_back(v); break;
  }
  return out;
}

// Fills `action` (the action space's layout) from a JSON action.
void action_from_json(const Space& space, const nlohmann::json& a, std::vector<std::byte>& action, std::size_t t) {
  action.resize(space.byte_size());
  if (space.is_discrete()) {
    if (!a.is_number_integer()) throw UserError(fmt::format("actions[{}]: expected an integer, got {}", t, a.dump()));
    as_span<std::int64_t>(Bytes(action))[0] = a.get<std::int64_t>();
    return;
  }
  if (space.is_box() && space.dtype() == DType::Float32) {
    auto dst = as_span<float>(Bytes(action));
    if (a.is_number()) {
      if (dst.size() != 1) throw UserError(fmt::format("actions[{}]: expected a list of {} numbers", t, dst.size()));
      dst[0] = static_cast<float>(a.get<double>());
      return;
    }
    if (!a.is_array() || a.size() != dst.size())
      throw UserError(fmt::format("actions[{}]: expected {} numbers, got {}", t, dst.size(), a.dump()));
    for (std::size_t i = 0; i < dst.size(); ++i) {
      if (!a[i].is_number()) throw UserError(fmt::format("actions[{}][{}]: expected a number", t, i));
      dst[i] = static_cast<float>(a[i].get<double>());
    }
    return;
  }
  throw UserError("replay supports Discrete and float32 Box action spaces, not " + space.describe());
}

}  // namespace

nlohmann::json replay_case(const nlohmann::json& input) {
  if (!input.is_object()) throw UserError("expected a JSON object");
  if (!input.contains("env") || !input["env"].is_string()) throw UserError("missing \"env\" (a string)");
  if (!input.contains("initial_state") || !input["initial_state"].is_array())
    throw UserError("missing \"initial_state\" (a list of numbers)");
  if (!input.contains("actions") || !input["actions"].is_array()) throw UserError("missing \"actions\" (a list)");
  const std::string id = input["env"].get<std::string>();
  auto env = make_env(id);
  auto* access = dynamic_cast<StateAccess*>(env.get());
  if (!access) throw UserError(fmt::format("env {} does not expose its internal state, so it cannot be replayed", id));

  std::vector<double> state;
  for (const auto& v : input["initial_state"]) {
    if (!v.is_number()) throw UserError("initial_state: expected numbers, got " + v.dump());
    state.push_back(v.get<double>());
  }
  std::vector<std::byte> obs(env->observation_space().byte_size());
  std::vector<std::byte> action;
  env->reset(std::nullopt, obs);
  access->set_state(state, obs);

  nlohmann::json out{{"obs", nlohmann::json::array()},        {"rewards", nlohmann::json::array()},
                     {"terminated", nlohmann::json::array()}, {"truncated", nlohmann::json::array()},
                     {"state", nlohmann::json::array()}};
  const auto& actions = input["actions"];
  for (std::size_t t = 0; t < actions.size(); ++t) {
    action_from_json(env->action_space(), actions[t], action, t);
    const StepResult r = env->step(ConstBytes(action), obs);
    out["obs"].push_back(obs_to_json(env->observation_space(), obs));
    out["rewards"].push_back(r.reward);
    out["terminated"].push_back(r.terminated);
    out["truncated"].push_back(r.truncated);
    out["state"].push_back(access->get_state());
    if (r.done()) break;
  }
  return out;
}

void replay_stream(std::istream& in, std::ostream& out) {
  for_each_json_line(in, [&](const nlohmann::json& input) { out << replay_case(input).dump() << '\n'; });
  out.flush();
}

}  // namespace rlzoo::cli
