// RLZOO_MAX_TIMESTEPS: an upper bound on every training run of the process, for smoke runs of
// documented commands (tests/docs/doc_snippets.py) and of scripts. When set, a preset's
// n_timesteps and each learn(n) are cut to it, with one warning; unset, nothing changes.
#pragma once

#include <cstdint>
#include <optional>

namespace rlzoo {

// The cap from the environment, or nullopt. A value that is not a whole number >= 1 is a
// UserError naming the variable.
std::optional<std::int64_t> timestep_cap();

// min(timesteps, the cap); says once per process that the cap applies ("what": the key or call).
std::int64_t capped_timesteps(std::int64_t timesteps, const char* what);

}  // namespace rlzoo
