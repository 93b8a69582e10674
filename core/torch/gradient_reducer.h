// The hook between backward() and the optimiser step where several learners agree on one
// gradient. An algorithm calls reduce() on its parameters after every backward(); in one
// process that is a no-op, and the distributed runtime plugs in an all-reduce (mean over
// learners, c10d) without the algorithm including any transport.
#pragma once

#include "core/torch/tensor.h"

#include <memory>
#include <vector>

namespace rlzoo {

class GradientReducer {
 public:
  virtual ~GradientReducer() = default;
  // Replaces each parameter's .grad() by the reduced gradient (in place). Parameters without a
  // gradient are skipped.
  virtual void reduce(const std::vector<torch::Tensor>& parameters) = 0;
  // Makes every learner start from the same parameters (the first learner's), in place.
  // Learners call it at the start of learn().
  virtual void synchronize(const std::vector<torch::Tensor>& /*parameters*/) {}
  // The element-wise minimum of `values` over all learners, which must all call it at the same
  // point: how learners whose data differ agree on what to do next (DMC: which seats to train).
  virtual std::vector<std::int64_t> minimum(std::vector<std::int64_t> values) { return values; }
  // Learners taking part (1 in one process), and this one's index.
  virtual int world_size() const { return 1; }
  virtual int rank() const { return 0; }
};

// One learner: gradients stay as they are.
class LocalGradientReducer : public GradientReducer {
 public:
  void reduce(const std::vector<torch::Tensor>&) override {}
};

// A shared no-op reducer (the default of every agent).
std::shared_ptr<GradientReducer> local_gradient_reducer();

}  // namespace rlzoo
