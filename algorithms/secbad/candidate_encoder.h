// One encoder state per candidate segment start, all advanced in one batched GRU step (notes
// §2.8): the released code keeps a Python list of hidden states and steps them one by one.
//
//   CandidateEncoder enc(gru_cell);
//   enc.reset();
//   each step:  enc.step(x_t);          // every live candidate and a new one (start = t) see x_t
//               posterior.update(...);  // likelihoods from enc.hidden(), rows as enc.lengths()
//               enc.keep(posterior.lengths());   // drop the pruned candidates
// Row i of hidden() is the state of the encoder run from a zero state over the last lengths()[i]
// inputs; lengths are ascending (the newest candidate first), as SegmentPosterior's.
#pragma once

#include <torch/nn/modules/rnn.h>

#include <span>
#include <vector>

namespace rlzoo::secbad {

class CandidateEncoder {
 public:
  explicit CandidateEncoder(torch::nn::GRUCell cell);

  void reset();
  // x: [in] (or [1, in]). Advances all candidates and starts a new one.
  void step(const torch::Tensor& x);
  // Keeps the candidates whose length is in `lengths` (ascending), in that order.
  void keep(std::span<const std::int64_t> lengths);

  const torch::Tensor& hidden() const { return hidden_; }  // [K, H]
  std::span<const std::int64_t> lengths() const { return lengths_; }
  std::int64_t size() const { return static_cast<std::int64_t>(lengths_.size()); }
  // Puts back a state read from hidden() and lengths() (a checkpoint).
  void restore(torch::Tensor hidden, std::vector<std::int64_t> lengths);

 private:
  torch::nn::GRUCell cell_;
  torch::Tensor hidden_;
  std::vector<std::int64_t> lengths_;
};

}  // namespace rlzoo::secbad
