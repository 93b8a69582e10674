#include "envs/doudizhu/peasant_pair.h"

#include <stdexcept>
#include <vector>

namespace rlzoo::doudizhu {

Player& PeasantPair::of(Seat s) {
  if (s == Seat::LandlordDown) return down_;
  if (s == Seat::LandlordUp) return up_;
  throw std::logic_error("PeasantPair asked to play the landlord seat");
}

std::size_t PeasantPair::choose(Game& g) { return of(g.acting()).choose(g); }

void PeasantPair::choose_batch(std::span<Game* const> games, std::span<std::size_t> out) {
  std::vector<Game*> part;
  std::vector<std::size_t> where, chosen;
  for (const Seat s : {Seat::LandlordDown, Seat::LandlordUp}) {
    part.clear();
    where.clear();
    for (std::size_t i = 0; i < games.size(); ++i) {
      if (games[i]->acting() == Seat::Landlord) of(Seat::Landlord);  // throws
      if (games[i]->acting() != s) continue;
      part.push_back(games[i]);
      where.push_back(i);
    }
    if (part.empty()) continue;
    chosen.assign(part.size(), 0);
    of(s).choose_batch(part, chosen);
    for (std::size_t k = 0; k < part.size(); ++k) out[where[k]] = chosen[k];
  }
}

void PeasantPair::game_over(const Game& g) {
  down_.game_over(g);
  if (&up_ != &down_) up_.game_over(g);
}

}  // namespace rlzoo::doudizhu
