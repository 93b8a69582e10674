// The uniform random baseline: every legal move of the acting seat equally likely.
//
// Owns its Rng (seeded once in the constructor; nothing global), so a seed gives the same
// choices for the same sequence of positions. Its draws depend on the order in which it is
// asked: in a batched evaluation that order depends on how many games run at once, so
// results with a RandomPlayer are reproducible for a fixed parallel_games, not across them.
#pragma once

#include <cstdint>

#include "core/common/rng.h"
#include "envs/doudizhu/player.h"

namespace rlzoo::doudizhu {

class RandomPlayer : public Player {
 public:
  explicit RandomPlayer(std::uint64_t seed) : rng_(seed) {}
  std::string name() const override { return "random"; }
  // Uniform over g.legal_moves() (which is never empty while the game runs).
  std::size_t choose(Game& g) override;

 private:
  Rng rng_;
};

}  // namespace rlzoo::doudizhu
