// `rlzoo train`'s core, shared with `rlzoo learner` (which trains the same way with a fleet of
// actor processes attached to the agent).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>
#include <yaml-cpp/yaml.h>

#include "core/config/context.h"

namespace rlzoo {
class Agent;
}

namespace rlzoo::cli {

struct TrainOptions {
  std::string algo, env, preset, run_dir, resume;
  std::vector<std::string> sets;
  std::optional<std::int64_t> seed;
  bool quiet = false;
  // ALGO ENV with the algorithm's defaults, not the shipped tuned preset for the pair.
  bool no_preset = false;
  std::string command_line;
  // Added to the preset's seed of a new run (learner r of a group trains on other episodes).
  std::int64_t seed_offset = 0;
  // Called with the agent once it is made (or loaded to resume), before anything is written.
  std::function<void(Agent&)> prepare;
};

// A new run (ALGO ENV or a preset, with overrides) or a resumed one (extended to a larger
// n_timesteps when --set n_timesteps=N is given, the only key a resume takes): run directory, preset
// and command line written, callbacks (evaluation, checkpoints), SIGINT/SIGTERM handled, the
// final agent saved. Throws UserError for bad input and Interrupted after a signal.
void run_train(TrainOptions& o);

// The preset YAML of a new run: the preset file (a path, or a shipped preset's name such as
// ppo/CartPole-v1), or ALGO ENV (the shipped preset for the pair when there is one, unless
// no_preset), then --set, --seed and the seed offset applied (not validated); ctx names where
// it came from.
YAML::Node resolved_train_preset(const TrainOptions& o, ConfigContext& ctx);

// runs/<algo>/<env>_<N> with N one more than the largest existing.
std::string next_run_dir(const std::string& algo, const std::string& env);

}  // namespace rlzoo::cli
