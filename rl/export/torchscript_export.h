// An agent's deterministic policy as a TorchScript module (`rlzoo export RUN_DIR --format
// torchscript OUT.pt`, docs/export.md): loadable with torch::jit::load in C++ and
// torch.jit.load in Python, no rlzoo needed. Its forward() gives act()'s actions for a batch
// of raw observations (normalisation, masks and clipping included); value() / q_values() where
// the network has them; recurrent policies take and return their state. The source comes from
// rl/export/torchscript_source.h, compiled by torch::jit::Module::define into a module that
// holds copies of the trained tensors. Metadata (rlzoo version, algorithm, env, spaces, method
// signatures) is the string attribute `rlzoo_metadata` and the extra file "rlzoo.json", both
// the same JSON.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "rl/agent.h"
#include "rl/export/torchscript_source.h"

namespace rlzoo {

struct TorchScriptExport {
  std::string path;
  std::vector<TorchScriptPolicy::Method> methods;  // the public methods with a line of doc each
  nlohmann::json metadata;
};

// Writes the policy of `agent` to `path` (parent directories created; the file is written
// beside and renamed into place). Throws UserError when the agent's algorithm has no export
// (naming those that have) or the file cannot be written.
TorchScriptExport export_torchscript(const Agent& agent, const std::string& path);

// The names of the registered algorithms whose agents can be exported.
std::vector<std::string> exportable_algorithms();

// How a saved export compares with the agent's own act().
struct TorchScriptCheck {
  std::int64_t observations = 0;     // observations compared (per method)
  std::int64_t action_mismatches = 0;  // discrete actions that differ (of all methods compared)
  double max_abs_diff = 0.0;          // float actions, values and recurrent states
  std::vector<std::string> compared;  // the methods compared, e.g. "forward", "forward_masked"
  // The observations and the agent's actions, for checking a loader elsewhere (`rlzoo export
  // --samples`, tests/python/test_export.py), as nested lists (Dict observations: one entry
  // per field):
  //   feed-forward: {"recurrent": false, "observations": [...], "actions": [...],
  //                  "masks": [...], "masked_actions": [...]}    (masks: when compared)
  //   recurrent:    {"recurrent": true, "batch": B, "steps": [{"observations", "episode_start",
  //                  "actions", "mask" (every other step, when compared)}, ...]}, the state
  //                  starting from initial_state(B) and carried from step to step.
  nlohmann::json samples;
  bool passed(double tolerance = 1e-6) const { return action_mismatches == 0 && max_abs_diff <= tolerance; }
};

// Loads `path` with torch::jit::load and compares it with agent.act() (deterministic) on
// `count` observations sampled from the observation space: forward(), forward_masked() with
// random legal-action masks where the module has it, recurrent policies over several steps
// with random episode starts (states compared too).
TorchScriptCheck check_torchscript_export(Agent& agent, const std::string& path, std::int64_t count = 100,
                                          std::uint64_t seed = 0);

}  // namespace rlzoo
