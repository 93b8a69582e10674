// A DouDizhu player that plays the greedy move of DouZero-style Q-networks (ours, trained by
// DMC, or DouZero's imported ones). choose_batch() evaluates every waiting game in one forward
// pass per seat; a position with a single legal move skips the network, as DouZero's
// evaluation agent does.
#pragma once

#include <memory>

#include "algorithms/dmc/decision_batch.h"
#include "envs/doudizhu/player.h"

namespace rlzoo::dmc {

class DmcPlayer : public doudizhu::Player {
 public:
  DmcPlayer(std::shared_ptr<SeatNets> nets, std::string name);
  std::string name() const override { return name_; }
  std::size_t choose(doudizhu::Game& g) override;
  void choose_batch(std::span<doudizhu::Game* const> games, std::span<std::size_t> out) override;

 private:
  std::shared_ptr<SeatNets> nets_;
  std::string name_;
  DecisionBatch batch_;
};

}  // namespace rlzoo::dmc
