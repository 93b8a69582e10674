// Two players sharing the peasant side, one per seat: landlord_down's moves come from one,
// landlord_up's from the other (an rlzoo agent beside an outside program, say). As a Player it
// serves the peasant role of evaluate_matchup; a batch is split by seat so each player still
// gets its positions together. It does not own the two players.
#pragma once

#include "envs/doudizhu/player.h"

namespace rlzoo::doudizhu {

class PeasantPair : public Player {
 public:
  PeasantPair(Player& landlord_down, Player& landlord_up) : down_(landlord_down), up_(landlord_up) {}
  std::string name() const override { return down_.name() + " + " + up_.name(); }
  // Throws std::logic_error for a landlord position (the pair plays only peasant seats).
  std::size_t choose(Game& g) override;
  void choose_batch(std::span<Game* const> games, std::span<std::size_t> out) override;
  void game_over(const Game& g) override;

 private:
  Player& of(Seat s);

  Player& down_;
  Player& up_;
};

}  // namespace rlzoo::doudizhu
