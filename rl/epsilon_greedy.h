// Epsilon-greedy exploration, the one draw every acting path shares (DQN's inline loop, its
// act() and its actor threads; DMC's actors and act()): per decision a coin rng.uniform() <
// epsilon and, when it explores, one rng.below() for a uniform index among the legal choices.
// The order of draws is part of the numerics that resumed runs and golden tests pin.
#pragma once

#include <cstdint>

#include "core/common/rng.h"

namespace rlzoo {

// A uniform index among the legal ones of n choices (all when legal is null): one below() draw.
std::int64_t uniform_legal_choice(Rng& rng, std::int64_t n, const std::uint8_t* legal);

// The index to explore among n choices (only those with legal[i] != 0 when legal is given), or
// -1 when the coin says act greedily. Inline: it runs once per env step or actor decision.
inline std::int64_t epsilon_explore(Rng& rng, double epsilon, std::int64_t n, const std::uint8_t* legal = nullptr) {
  if (!(rng.uniform() < epsilon)) return -1;
  return uniform_legal_choice(rng, n, legal);
}

}  // namespace rlzoo
