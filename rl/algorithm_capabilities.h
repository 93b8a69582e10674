// What an algorithm can do, declared as data when it registers (the way an env declares its
// spaces): which backends feed it experience, whether several learners can share its training,
// which devices and policies it takes. make_agent, load_agent and the CLI check a preset against
// it before anything is built or written, and refuse at the preset's line whatever it does not
// declare; the training driver (rl/agent.h, Agent::learn) reads it too.
//
//   AlgorithmCapabilities caps;
//   caps.learning = LearningKind::off_policy;
//   caps.backends = {Backend::inline_loop, Backend::threads};
//   caps.several_learners = true;
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>
#include <yaml-cpp/yaml.h>

#include "core/env/env.h"
#include "core/spaces/space.h"

namespace rlzoo {

struct AgentSetup;
struct RuntimeConfig;

// Where an algorithm's experience comes from (the preset's runtime.backend): the synchronous loop
// on the learner's thread, actor threads in the learner's process, or actor processes over gRPC
// (`rlzoo learner` / `rlzoo launch`).
enum class Backend { inline_loop, threads, processes };
std::string_view backend_name(Backend backend);  // "inline", "threads", "processes"

// From the policy being trained (on-policy), from any experience (a replay buffer), or from a
// fixed dataset (offline).
enum class LearningKind { on_policy, off_policy, offline };
std::string_view learning_kind_name(LearningKind kind);

struct AlgorithmCapabilities {
  LearningKind learning = LearningKind::on_policy;
  // The kinds of env spaces it learns on, checked against the preset's env before the agent is
  // made. Finer limits (a Discrete space that does not start at 0, one particular env) stay
  // the algorithm's own checks, with their own errors.
  std::vector<SpaceKind> observation_spaces{SpaceKind::Box};
  std::vector<SpaceKind> action_spaces{SpaceKind::Discrete};
  // Backends in order of preference: `runtime.backend: auto` without actors takes the first.
  std::vector<Backend> backends{Backend::inline_loop};
  // `--learners N`: the driver broadcasts rank 0's parameters when learn() starts and the
  // algorithm averages every gradient through Agent::gradient_reducer().
  bool several_learners = false;
  // `device: cuda` (and `auto` on a machine with a GPU); without it such presets are refused.
  bool gpu = false;
  // Recurrent policies (hyperparams.policy.recurrent).
  bool recurrent_policies = false;
  // Agent::export_policy() gives the acting network (`rlzoo export`).
  bool exportable = false;
  // A checkpoint taken at a cycle end continues on the inline backend exactly as the
  // uninterrupted run (parameters, optimiser, envs mid-episode, generators, buffers).
  bool exact_resume = true;
  // What learn(n) and num_timesteps() count: "env steps", "frames" (dmc: decisions learned
  // from), "gradient steps" (offline algorithms).
  std::string progress_unit = "env steps";
  // BLAS threads while learning: the preset's torch_threads (an offline learner has the machine
  // to itself), else 1 (envs and actors keep the other cores).
  bool blas_uses_torch_threads = false;

  bool supports(Backend backend) const;
  std::string backend_list() const;  // "inline, threads"
  bool handles(const EnvSpec& env) const;  // its observation and action space kinds are declared
  // One line for `rlzoo list algos` and docs/presets.md: "on-policy; backends inline, threads; ...".
  std::string describe() const;
};

// The backend a preset's runtime section asks for: runtime.backend, or for `auto` threads when
// runtime.actors > 0, else the algorithm's first backend. Nothing is checked here.
Backend requested_backend(const RuntimeConfig& runtime, const AlgorithmCapabilities& caps);

// Refuses, with a ConfigError at the preset's line (file:line:col or the --set flag) that names
// the key and what `algorithm` supports, a runtime backend, device or recurrent policy
// (hyperparams.policy.recurrent) `caps` does not declare and a runtime section that contradicts
// itself (backend inline with actors, threads or processes without).
void check_preset_capabilities(const AgentSetup& setup, const YAML::Node& preset, const std::string& algorithm,
                               const AlgorithmCapabilities& caps);
// Refuses, with a ConfigError at the preset's `env` line naming the env's space, what the
// algorithm takes and which algorithms take it, an env whose space kinds `caps` does not declare.
void check_env_spaces(const AgentSetup& setup, const YAML::Node& preset, const std::string& algorithm,
                      const AlgorithmCapabilities& caps, const EnvSpec& env);

// "Box, Dict": the kinds, for tables and messages.
std::string space_kind_list(const std::vector<SpaceKind>& kinds);

// The ids of registered algorithms whose capabilities satisfy `pred`, comma-separated, for
// error messages ("these can: dqn, ppo").
std::string algorithms_that(const std::function<bool(const AlgorithmCapabilities&)>& pred);

}  // namespace rlzoo
