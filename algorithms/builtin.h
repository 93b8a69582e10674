// Registers every built-in algorithm with the algorithm registry (idempotent). Explicit, so
// that static linking keeps them.
#pragma once

namespace rlzoo {
void register_builtin_algorithms();
}  // namespace rlzoo
