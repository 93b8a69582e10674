// A DouDizhu player: anything that picks one of the acting seat's legal moves. Baselines
// (random, rule-based) live beside the engine; neural players (DouZero-style Q-networks)
// implement the same interface in algorithms/dmc. Players see the whole Game object, but a
// fair player reads only what the acting seat may know: its own hand, the public history,
// cards played and cards left (DouZero's information set).
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string>

#include "envs/doudizhu/game.h"

namespace rlzoo::doudizhu {

class Player {
 public:
  virtual ~Player() = default;
  virtual std::string name() const = 0;
  // Index into g.legal_moves() of the move the acting seat plays.
  virtual std::size_t choose(Game& g) = 0;
  // Several games at once (all of them waiting for a move; the acting seats may differ), so
  // that a network can evaluate them in one batch. The default calls choose() on each.
  virtual void choose_batch(std::span<Game* const> games, std::span<std::size_t> out) {
    for (std::size_t i = 0; i < games.size(); ++i) out[i] = choose(*games[i]);
  }
  // Called once a game in which this player held a seat is over (before the Game object is
  // reused), so that a player can report or forget per-game state. The default does nothing.
  virtual void game_over(const Game& g) { (void)g; }
};

}  // namespace rlzoo::doudizhu
