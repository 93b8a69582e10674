// Reading the fleet learner's stats file (--stats-file, JSON) in the fleet's process tests.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/support/test_paths.h"

namespace rlzoo::test {

// The stats file's JSON; an empty object while the file is not written yet, a discarded value
// when it is cut mid-write.
inline nlohmann::json fleet_stats(const std::string& path) {
  const std::string text = read_file_or_empty(path);
  return text.empty() ? nlohmann::json::object() : nlohmann::json::parse(text, nullptr, false);
}

// Trajectories used from actor `actor`'s runs so far.
inline std::uint64_t used_by_actor(const std::string& path, int actor) {
  std::uint64_t n = 0;
  const auto s = fleet_stats(path);
  if (s.is_object() && s.contains("runs"))
    for (const auto& [id, run] : s["runs"].items())
      if (run["actor"].get<int>() == actor) n += run["used"].get<std::uint64_t>();
  return n;
}

}  // namespace rlzoo::test
