// Registers every built-in algorithm with the algorithm registry (idempotent), and the dataset
// wrappers presets may name (record_episodes, datasets/record_episodes.h). Explicit, so
// that static linking keeps them.
#pragma once

namespace rlzoo {
void register_builtin_algorithms();
}  // namespace rlzoo
