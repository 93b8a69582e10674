// torch::optim::Adam with its update done in one pass over each parameter's memory instead of
// about ten LibTorch operations per parameter. On the small networks RL trains (a few dozen
// parameters tensors of a few thousand floats) the operations' dispatch, not their arithmetic,
// is what Adam costs; the pass removes it.
//
// It is an Adam in every other respect: the same options, the same state (exp_avg, exp_avg_sq and
// step per parameter, in the optimiser's own state map), so save()/load(), checkpoints and exact
// resume are unchanged and either class can load the other's state. The arithmetic is Adam's, in
// float, in the same order (m = b1 m + (1 - b1) g; v = b2 v + (1 - b2) g^2; p -= lr / bc1 * m /
// (sqrt(v) / sqrt(bc2) + eps)); LibTorch's vector kernels fuse some multiply-adds, so the two agree
// to float rounding, not bit for bit (tests/optim/fused_adam_test.cpp).
//
// Parameters that are not dense, contiguous float32 CPU tensors, and amsgrad, take
// torch::optim::Adam::step as they are: a step is fused only when every parameter can be.
#pragma once

#include <torch/optim/adam.h>

#include <vector>

namespace rlzoo {

class FusedAdam : public torch::optim::Adam {
 public:
  using torch::optim::Adam::Adam;

  torch::Tensor step(LossClosure closure = nullptr) override;
  void load(torch::serialize::InputArchive& archive) override;

  // Whether the last step() took the fused pass (for tests and benchmarks).
  bool last_step_fused() const { return last_step_fused_; }

 private:
  bool fusable() const;
  torch::optim::AdamParamState& state_of(const torch::Tensor& p);

  // The state of each parameter seen so far, by its TensorImpl: the state map is keyed by a
  // string built from the pointer, costly to build every step. Cleared by load(), which
  // replaces the states.
  std::vector<std::pair<const void*, torch::optim::AdamParamState*>> cache_;
  bool last_step_fused_ = false;
};

}  // namespace rlzoo
