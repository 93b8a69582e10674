#include "rl/timestep_cap.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <cstdlib>

#include "core/common/error.h"
#include "core/common/strings.h"

namespace rlzoo {

std::optional<std::int64_t> timestep_cap() {
  const char* text = std::getenv("RLZOO_MAX_TIMESTEPS");
  if (!text || !*text) return std::nullopt;
  const auto v = parse_int64(text);
  if (!v || *v < 1)
    throw UserError(fmt::format("RLZOO_MAX_TIMESTEPS={}: expected a whole number of steps >= 1 (or unset it)", text));
  return *v;
}

std::int64_t capped_timesteps(std::int64_t timesteps, const char* what) {
  const auto cap = timestep_cap();
  if (!cap || timesteps <= *cap) return timesteps;
  static std::atomic<bool> said{false};
  if (!said.exchange(true))
    spdlog::warn("RLZOO_MAX_TIMESTEPS={} cuts {} from {} steps to {}", *cap, what, timesteps, *cap);
  return *cap;
}

}  // namespace rlzoo
