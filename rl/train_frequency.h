// train_freq as Stable-Baselines3 and rl-baselines3-zoo write it: a number of vector-env steps
// (`4`), or a count with its unit (`[4, "step"]`, `[1, "episode"]`). With episodes, a training
// phase follows every n finished episodes (SB3 allows that with one env only).
#pragma once

#include <cstdint>
#include <string>
#include <yaml-cpp/yaml.h>

#include "core/config/context.h"

namespace rlzoo {

struct TrainFrequency {
  std::int64_t n = 1;
  bool episodes = false;  // n counts finished episodes, not vector-env steps

  static std::string yaml_type() { return "integer or [n, step|episode]"; }
  void parse_yaml(const YAML::Node& node, const ConfigContext& ctx);
  YAML::Node emit_yaml() const;
  // "4 steps", "1 episode".
  std::string text() const;
  bool operator==(const TrainFrequency&) const = default;
};

}  // namespace rlzoo
