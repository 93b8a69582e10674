// Stops training at the first update whose gradients are not finite, before the optimizer
// applies them. A NaN or Inf in a loss or a gradient would poison the parameters, and with them
// every checkpoint saved afterwards; stopping before the step keeps the parameters and the
// checkpoints already saved as they were (docs/reliability.md). The check reads the total
// gradient norm that clipping computes anyway and the loss's value (one read of a scalar).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include <torch/types.h>

#include "core/common/error.h"

namespace rlzoo {

// Training cannot go on: a loss, gradient or parameter is not finite. A UserError: the usual
// causes are settings (a learning rate too high, unscaled rewards), and the message says so.
class TrainingDiverged : public UserError {
 public:
  using UserError::UserError;
};

// Which update is being checked, for the message: "<what> <index>" at env step num_timesteps,
// e.g. {"DQN gradient step", 312, 20000}.
struct UpdateWhere {
  std::string_view what;
  std::int64_t index = 0;
  std::int64_t num_timesteps = 0;
};

// Clips the gradients of `params` to the total norm `max_norm` (<= 0: no clipping) like
// torch::nn::utils::clip_grad_norm_ and returns the norm before clipping. Throws
// TrainingDiverged, with the parameters untouched, when that norm or `loss` (a scalar;
// undefined: not checked) is not finite; the message names the update, the env step and both.
double clip_and_check_gradients(const std::vector<torch::Tensor>& params, double max_norm, const torch::Tensor& loss,
                                const UpdateWhere& where);
// The same with the loss's value, for updates that compute it without a tensor.
double clip_and_check_gradients(const std::vector<torch::Tensor>& params, double max_norm, double loss,
                                const UpdateWhere& where);

// Throws TrainingDiverged as above when `gradient` (an estimator's flat gradient, for algorithms
// that compute it themselves) holds a NaN or Inf.
void check_finite_gradient(const torch::Tensor& gradient, const UpdateWhere& where);

}  // namespace rlzoo
