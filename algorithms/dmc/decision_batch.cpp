#include "algorithms/dmc/decision_batch.h"

#include <algorithm>

#include "algorithms/dmc/douzero_inference.h"
#include "core/torch/device.h"
#include "envs/doudizhu/encoding.h"

namespace rlzoo::dmc {

using namespace doudizhu;

void DecisionBatch::clear() {
  for (auto& s : seats_) {
    s.x.clear();
    s.z.clear();
    s.actions.clear();
    s.decision_of.clear();
    s.decisions = 0;
    s.q = torch::Tensor();
  }
  decisions_.clear();
}

std::size_t DecisionBatch::add(Game& g) {
  const Seat seat = g.acting();
  PerSeat& s = seats_[static_cast<std::size_t>(seat_index(seat))];
  const auto dim = static_cast<std::size_t>(state_dim(seat));
  s.x.resize(s.x.size() + dim);
  encode_state(g, seat, s.x.data() + s.x.size() - dim);
  s.z.resize(s.z.size() + kHistoryDim);
  encode_history(g, s.z.data() + s.z.size() - kHistoryDim);
  const auto& legal = g.legal_moves();
  const auto first = static_cast<std::int64_t>(s.decision_of.size());
  s.actions.resize(s.actions.size() + legal.size() * kCardDim);
  float* a = s.actions.data() + static_cast<std::size_t>(first) * kCardDim;
  for (std::size_t k = 0; k < legal.size(); ++k) {
    encode_cards(legal[k], a + k * kCardDim);
    s.decision_of.push_back(s.decisions);
  }
  ++s.decisions;
  decisions_.push_back({seat_index(seat), first, static_cast<std::int64_t>(legal.size())});
  return decisions_.size() - 1;
}

std::size_t DecisionBatch::add_encoded(Seat seat, const std::uint8_t* x, const std::uint8_t* z,
                                       const std::uint8_t* actions, std::int64_t count,
                                       std::size_t action_stride) {
  PerSeat& s = seats_[static_cast<std::size_t>(seat_index(seat))];
  s.x.insert(s.x.end(), x, x + state_dim(seat));
  s.z.insert(s.z.end(), z, z + kHistoryDim);
  const auto first = static_cast<std::int64_t>(s.decision_of.size());
  for (std::int64_t k = 0; k < count; ++k) {
    const std::uint8_t* a = actions + static_cast<std::size_t>(k) * action_stride;
    s.actions.insert(s.actions.end(), a, a + kCardDim);
    s.decision_of.push_back(s.decisions);
  }
  ++s.decisions;
  decisions_.push_back({seat_index(seat), first, count});
  return decisions_.size() - 1;
}

void DecisionBatch::evaluate(SeatNets& nets) {
  torch::NoGradGuard no_grad;
  for (Seat seat : kSeats) {
    PerSeat& s = seats_[static_cast<std::size_t>(seat_index(seat))];
    if (s.decisions == 0) continue;
    const auto d = s.decisions, n = static_cast<std::int64_t>(s.decision_of.size());
    const torch::Device device = module_device(nets[seat]);  // the learner's nets may be on a GPU
    const auto z = torch::from_blob(s.z.data(), {d, kHistoryRows, kHistoryRowDim}, torch::kFloat32).to(device);
    const auto x = torch::from_blob(s.x.data(), {d, state_dim(seat)}, torch::kFloat32).to(device);
    const auto a = torch::from_blob(s.actions.data(), {n, kCardDim}, torch::kFloat32).to(device);
    const auto of = torch::from_blob(s.decision_of.data(), {n}, torch::kInt64).to(device);
    s.q = nets[seat].q_values(z, x, a, of).cpu().contiguous();
  }
}

double DecisionBatch::flops() const {
  double total = 0;
  const auto nonzero = [](const std::vector<float>& v) {
    return static_cast<std::int64_t>(std::count_if(v.begin(), v.end(), [](float f) { return f != 0.0f; }));
  };
  for (const PerSeat& s : seats_)
    if (s.decisions > 0)
      total += factorised_q_values_flops(s.decisions, static_cast<std::int64_t>(s.decision_of.size()),
                                         nonzero(s.x) + nonzero(s.z) + nonzero(s.actions));
  return total;
}

float DecisionBatch::q(std::size_t d, std::size_t k) const {
  const Decision& dec = decisions_[d];
  return seats_[static_cast<std::size_t>(dec.seat)].q.data_ptr<float>()[dec.first + static_cast<std::int64_t>(k)];
}

std::size_t DecisionBatch::argmax(std::size_t d) const {
  const Decision& dec = decisions_[d];
  const float* q = seats_[static_cast<std::size_t>(dec.seat)].q.data_ptr<float>() + dec.first;
  std::size_t best = 0;
  for (std::int64_t k = 1; k < dec.count; ++k)
    if (q[k] > q[best]) best = static_cast<std::size_t>(k);
  return best;
}

}  // namespace rlzoo::dmc
