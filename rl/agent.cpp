#include "rl/agent.h"

#include <cmath>
#include <fmt/format.h>
#include <numeric>

#include "rl/agent_checkpoint.h"
#include "rl/algorithm_registry.h"
#include "rl/nets/observation.h"
#include "core/config/yaml_io.h"
#include "core/env/env_purpose.h"
#include "core/registry/env_registry.h"

namespace rlzoo {

double EvalResult::mean_return() const {
  return returns.empty() ? 0.0 : std::accumulate(returns.begin(), returns.end(), 0.0) / static_cast<double>(returns.size());
}

double EvalResult::std_return() const {
  if (returns.empty()) return 0.0;
  const double m = mean_return();
  double s = 0;
  for (double r : returns) s += (r - m) * (r - m);
  return std::sqrt(s / static_cast<double>(returns.size()));
}

double EvalResult::mean_length() const {
  return lengths.empty() ? 0.0
                         : static_cast<double>(std::accumulate(lengths.begin(), lengths.end(), std::int64_t{0})) /
                               static_cast<double>(lengths.size());
}

torch::Tensor Agent::act_one(ConstBytes observation, const ActOptions& options) {
  const Space& space = env_spec().observation_space;
  if (observation.size() != space.byte_size())
    throw UserError(fmt::format("act_one: observation has {} bytes, the space {} needs {}", observation.size(),
                                space.describe(), space.byte_size()));
  return act(observation_tensors(space, observation.data(), 1, /*copy=*/true), options);
}

ActResult Agent::act_with_state(const std::vector<torch::Tensor>& obs, const ActOptions& options) {
  return {act(obs, options), {}};
}

EvalResult Agent::evaluate(int episodes, bool deterministic, std::uint64_t seed, const EvalObserver& observer) {
  if (episodes < 1) throw UserError(fmt::format("evaluate: episodes must be >= 1, got {}", episodes));
  const EnvPurposeScope evaluation(EnvPurpose::evaluation);  // wrappers such as record_episodes stay inert
  auto env = make_env(preset().env, preset().env_kwargs, ConfigContext("env_kwargs"));
  std::vector<std::byte> obs(env->observation_space().byte_size());
  EvalResult result;
  ActOptions opts;
  opts.deterministic = deterministic;
  const bool masked = env->spec().has_action_mask;
  const Space& space = env_spec().observation_space;
  for (int ep = 0; ep < episodes; ++ep) {
    env->reset(seed + static_cast<std::uint64_t>(ep), obs);
    opts.recurrent_state = torch::Tensor();  // the state at an episode start
    if (observer) observer(*env, ep, 0);
    for (std::int64_t t = 1;; ++t) {
      if (masked) {
        auto m = env->action_mask();
        opts.action_mask = torch::from_blob(const_cast<std::uint8_t*>(m.data()), {1, static_cast<std::int64_t>(m.size())},
                                            torch::kUInt8)
                               .to(torch::kBool);
      }
      ActResult out = act_with_state(observation_tensors(space, obs.data(), 1, /*copy=*/true), opts);
      opts.recurrent_state = std::move(out.recurrent_state);
      const torch::Tensor a = out.actions.contiguous();
      StepResult r;
      if (a.scalar_type() == torch::kInt64)
        r = env->step(a.item<std::int64_t>(), obs);
      else
        r = env->step(ConstBytes(static_cast<const std::byte*>(a.data_ptr()), a.nbytes()), obs);
      if (observer) observer(*env, ep, t);
      if (r.done()) break;
    }
    result.returns.push_back(env->info().episode_return);
    result.lengths.push_back(env->info().episode_length);
  }
  return result;
}

void Agent::save(const std::string& dir) const {
  try {
    checkpoint().commit(dir);
  } catch (const UserError& e) {
    throw UserError(fmt::format("agent at step {} not saved to {}: {}", num_timesteps(), dir, e.what()));
  }
}

std::unique_ptr<Agent> Agent::from_preset(const std::string& path, const std::vector<std::string>& overrides) {
  YAML::Node root = load_yaml_file(path);
  ConfigContext ctx(path);
  for (const auto& o : overrides) apply_override(root, o, ctx);
  return make_agent_from_yaml(root, ctx);
}

std::unique_ptr<Agent> make_agent_from_yaml(YAML::Node preset, const ConfigContext& ctx) {
  const AgentSetup setup = parse_preset(preset, ctx);
  return algorithm_registry().get(setup.preset.algo).create(setup);
}

std::unique_ptr<Agent> make_agent(const std::string& algorithm, const std::string& env_id,
                                  const std::vector<std::string>& overrides) {
  YAML::Node root(YAML::NodeType::Map);
  root["algo"] = algorithm;
  root["env"] = env_id;
  ConfigContext ctx(fmt::format("make_agent(\"{}\", \"{}\")", algorithm, env_id));
  for (const auto& o : overrides) apply_override(root, o, ctx);
  return make_agent_from_yaml(root, ctx);
}

std::unique_ptr<Agent> load_agent(const std::string& dir, const std::vector<std::string>& overrides) {
  const CheckpointReader reader = CheckpointReader::open(resolve_agent_dir(dir));
  check_checkpoint_version(reader);
  const AgentSetup setup = saved_setup(reader, overrides);
  try {
    auto agent = algorithm_registry().get(setup.preset.algo).load(setup, reader);
    const auto meta = reader.metadata();
    if (meta.is_object() && meta.contains("num_episodes"))  // older checkpoints lack it
      agent->set_num_episodes(meta.at("num_episodes").get<std::int64_t>());
    return agent;
  } catch (const nlohmann::json::exception& e) {
    // An algorithm's saved state (state.json, envs.json) without a field it needs, or of the wrong type.
    throw UserError(fmt::format("{}: cannot restore the {} agent: a saved state does not have what it needs ({})",
                                reader.dir().string(), setup.preset.algo, e.what()));
  }
}

}  // namespace rlzoo
