// Decisions of many DouDizhu games gathered for one forward pass per seat.
//
//   DecisionBatch batch;                 // reused: clear() keeps the capacity
//   for (Game* g : games) first[i] = batch.add(*g);   // the acting seat's state and candidates
//   batch.evaluate(nets);                // one q_values() pass per seat that has decisions
//   batch.q(g_index, k)                  // Q of candidate k of the i-th added decision
//
// States are encoded once per decision (DouZero's x_no_action and z), candidates as their
// 54-value action encodings; the factorised DouZeroNet::q_values does the rest.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "algorithms/dmc/seat_nets.h"

namespace rlzoo::dmc {

class DecisionBatch {
 public:
  void clear();
  // Adds the decision of the acting seat of `g` (which must not be over) with all its legal
  // moves as candidates. Returns the decision's index.
  std::size_t add(doudizhu::Game& g);
  // Adds a decision from encoded parts: x (state_dim(seat) values), z (810) and `count`
  // candidate encodings of 54 values each, `action_stride` bytes apart; all 0/1 bytes.
  std::size_t add_encoded(doudizhu::Seat seat, const std::uint8_t* x, const std::uint8_t* z,
                          const std::uint8_t* actions, std::int64_t count, std::size_t action_stride);
  std::size_t size() const { return decisions_.size(); }

  // Runs the nets (no gradient) and fills the Q-values.
  void evaluate(SeatNets& nets);
  // The floating-point operations evaluate() performs on the CPU for the decisions added
  // (factorised_q_values_flops, algorithms/dmc/douzero_inference.h).
  double flops() const;
  // Q of candidate k of decision d (after evaluate()).
  float q(std::size_t d, std::size_t k) const;
  std::int64_t candidates(std::size_t d) const { return decisions_[d].count; }
  // Index of the best candidate of decision d (the first of equal maxima, as numpy's argmax).
  std::size_t argmax(std::size_t d) const;

 private:
  struct PerSeat {
    std::vector<float> x, z, actions;
    std::vector<std::int64_t> decision_of;
    std::int64_t decisions = 0;
    torch::Tensor q;  // [candidates of this seat], after evaluate()
  };
  struct Decision {
    int seat = 0;
    std::int64_t first = 0;  // first candidate row within its seat
    std::int64_t count = 0;
  };
  std::array<PerSeat, 3> seats_;
  std::vector<Decision> decisions_;
};

}  // namespace rlzoo::dmc
