#include "envs/doudizhu/random_player.h"

#include "core/common/error.h"

namespace rlzoo::doudizhu {

std::size_t RandomPlayer::choose(Game& g) {
  const std::size_t n = g.legal_moves().size();
  RLZOO_CHECK(n > 0, "RandomPlayer asked to move in a finished game");
  return static_cast<std::size_t>(rng_.below(n));
}

}  // namespace rlzoo::doudizhu
