#include "algorithms/dmc/dmc_player.h"

namespace rlzoo::dmc {

DmcPlayer::DmcPlayer(std::shared_ptr<SeatNets> nets, std::string name) : nets_(std::move(nets)), name_(std::move(name)) {}

std::size_t DmcPlayer::choose(doudizhu::Game& g) {
  doudizhu::Game* one[] = {&g};
  std::size_t out[1];
  choose_batch(one, out);
  return out[0];
}

void DmcPlayer::choose_batch(std::span<doudizhu::Game* const> games, std::span<std::size_t> out) {
  torch::InferenceMode inference;
  batch_.clear();
  std::vector<std::int64_t> decision(games.size(), -1);
  for (std::size_t i = 0; i < games.size(); ++i) {
    out[i] = 0;
    if (games[i]->legal_moves().size() > 1) decision[i] = static_cast<std::int64_t>(batch_.add(*games[i]));
  }
  if (batch_.size() == 0) return;
  batch_.evaluate(*nets_);
  for (std::size_t i = 0; i < games.size(); ++i)
    if (decision[i] >= 0) out[i] = batch_.argmax(static_cast<std::size_t>(decision[i]));
}

}  // namespace rlzoo::dmc
