#include "rl/algorithm_capabilities.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "rl/algorithm_registry.h"

namespace rlzoo {

std::string_view backend_name(Backend backend) {
  switch (backend) {
    case Backend::inline_loop: return "inline";
    case Backend::threads: return "threads";
    case Backend::processes: return "processes";
  }
  return "?";
}

std::string_view learning_kind_name(LearningKind kind) {
  switch (kind) {
    case LearningKind::on_policy: return "on-policy";
    case LearningKind::off_policy: return "off-policy";
    case LearningKind::offline: return "offline";
  }
  return "?";
}

bool AlgorithmCapabilities::supports(Backend backend) const {
  return std::find(backends.begin(), backends.end(), backend) != backends.end();
}

std::string AlgorithmCapabilities::backend_list() const {
  std::vector<std::string_view> names;
  for (Backend b : backends) names.push_back(backend_name(b));
  return fmt::format("{}", fmt::join(names, ", "));
}

std::string space_kind_list(const std::vector<SpaceKind>& kinds) {
  std::vector<std::string_view> names;
  for (SpaceKind k : kinds) names.push_back(space_kind_name(k));
  return fmt::format("{}", fmt::join(names, ", "));
}

namespace {
bool declares(const std::vector<SpaceKind>& kinds, SpaceKind kind) {
  return std::find(kinds.begin(), kinds.end(), kind) != kinds.end();
}
}  // namespace

bool AlgorithmCapabilities::handles(const EnvSpec& env) const {
  return declares(observation_spaces, env.observation_space.kind()) && declares(action_spaces, env.action_space.kind());
}

std::string AlgorithmCapabilities::describe() const {
  std::string s = fmt::format("{}; observations: {}; actions: {}; backends: {}", learning_kind_name(learning),
                              space_kind_list(observation_spaces), space_kind_list(action_spaces), backend_list());
  if (several_learners) s += "; several learners";
  if (gpu) s += "; cpu or cuda";
  if (recurrent_policies) s += "; recurrent policies";
  if (exportable) s += "; exportable";
  if (!exact_resume) s += "; resumes with fresh episodes";
  if (progress_unit != "env steps") s += "; counts " + progress_unit;
  return s;
}

Backend requested_backend(const RuntimeConfig& runtime, const AlgorithmCapabilities& caps) {
  if (runtime.backend == "inline") return Backend::inline_loop;
  if (runtime.backend == "threads") return Backend::threads;
  if (runtime.backend == "processes") return Backend::processes;
  if (runtime.actors > 0) return Backend::threads;
  return caps.backends.empty() ? Backend::inline_loop : caps.backends.front();
}

void check_preset_capabilities(const AgentSetup& setup, const YAML::Node& preset, const std::string& algorithm,
                               const AlgorithmCapabilities& caps) {
  const RuntimeConfig& rt = setup.preset.runtime;
  // The preset's node at a key, for the error's line (const lookups of a missing key give
  // invalid nodes, hence IsDefined() first).
  auto child = [](const YAML::Node& n, const char* key) {
    return n.IsDefined() && n.IsMap() ? n[key] : YAML::Node();
  };
  const YAML::Node runtime = child(preset, "runtime");
  auto node = [&](const char* key) { return child(runtime, key); };
  const ConfigContext ctx = setup.ctx.child("runtime");
  const Backend backend = requested_backend(rt, caps);
  if (!caps.supports(backend)) {
    // Reported where the request is: the backend key, or the actors that asked for threads.
    const bool explicit_backend = rt.backend != "auto";
    const char* key = explicit_backend ? "backend" : "actors";
    std::string why = fmt::format("{} does not run on the {} backend; it supports: {}", algorithm,
                                  backend_name(backend), caps.backend_list());
    if (!explicit_backend) why += " (runtime.actors > 0 asks for actor threads; remove it)";
    ctx.child(key).fail(node(key).IsDefined() ? node(key) : runtime, why);
  }
  if (backend == Backend::inline_loop && rt.actors > 0)
    ctx.child("actors").fail(node("actors"), fmt::format("runtime.backend inline runs no actor threads; remove "
                                                         "runtime.actors or ask for backend threads ({} supports: {})",
                                                         algorithm, caps.backend_list()));
  if (backend == Backend::processes && rt.actors < 1)
    ctx.child("actors").fail(node("actors").IsDefined() ? node("actors") : node("backend"),
                             "runtime.backend processes needs runtime.actors >= 1 (actor processes, and trajectories "
                             "per round)");
  if (backend == Backend::threads && rt.backend == "threads" && rt.actors < 1 && caps.backends.front() != backend)
    ctx.child("actors").fail(node("actors").IsDefined() ? node("actors") : node("backend"),
                             "runtime.backend threads needs runtime.actors >= 1");
  if (rt.actor_nice > 0 && backend != Backend::threads)
    ctx.child("actor_nice").fail(node("actor_nice"), fmt::format("runtime.actor_nice applies to actor threads; the {} "
                                                                 "backend runs none (remove it)",
                                                                 backend_name(backend)));
  // A recurrent policy is asked for by hyperparams.policy.recurrent.cell other than none.
  const YAML::Node cell = child(child(child(child(preset, "hyperparams"), "policy"), "recurrent"), "cell");
  if (!caps.recurrent_policies && cell.IsDefined() && cell.IsScalar() && cell.Scalar() != "none")
    setup.ctx.child("hyperparams.policy.recurrent.cell")
        .fail(cell,
              fmt::format("{} has no recurrent policies (these do: {})", algorithm,
                          algorithms_that([](const AlgorithmCapabilities& c) { return c.recurrent_policies; })));
  const std::string& device = setup.preset.device;
  if (!caps.gpu && device != "cpu" && device != "auto")
    setup.ctx.child("device").fail(
        child(preset, "device"),
        fmt::format("{} trains on the CPU only (device '{}' asked for); use device: cpu", algorithm, device));
}

void check_env_spaces(const AgentSetup& setup, const YAML::Node& preset, const std::string& algorithm,
                      const AlgorithmCapabilities& caps, const EnvSpec& env) {
  if (caps.handles(env)) return;
  const bool obs_ok = declares(caps.observation_spaces, env.observation_space.kind());
  const Space& space = obs_ok ? env.action_space : env.observation_space;
  const char* what = obs_ok ? "actions" : "observations";
  const std::string takers = algorithms_that([&](const AlgorithmCapabilities& c) { return c.handles(env); });
  const YAML::Node node = preset.IsDefined() && preset.IsMap() ? preset["env"] : YAML::Node();
  setup.ctx.child("env").fail(
      node, fmt::format("{} learns on {} {}; env {} has {} {} (algorithms that take its kinds of spaces: {})", algorithm,
                        space_kind_list(obs_ok ? caps.action_spaces : caps.observation_spaces), what, env.id,
                        space.describe(), what, takers));
}

std::string algorithms_that(const std::function<bool(const AlgorithmCapabilities&)>& pred) {
  std::vector<std::string> ids;
  for (const std::string& id : algorithm_registry().names())
    if (pred(algorithm_registry().get(id).capabilities)) ids.push_back(id);
  return ids.empty() ? std::string("none") : fmt::format("{}", fmt::join(ids, ", "));
}

}  // namespace rlzoo
