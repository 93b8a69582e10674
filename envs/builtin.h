// Registers every built-in env with the env registry. Call once at start-up (idempotent);
// an explicit call rather than static registration, so static linking keeps the envs.
#pragma once

namespace rlzoo {
void register_builtin_envs();
}  // namespace rlzoo
