#include "rl/gradient_guard.h"

#include <cmath>

#include <fmt/format.h>
#include <torch/nn/utils/clip_grad.h>

namespace rlzoo {

namespace {

[[noreturn]] void diverged(const UpdateWhere& where, const std::string& what) {
  throw TrainingDiverged(fmt::format(
      "training diverged at step {} ({} {}): {}; the parameters were not updated and the checkpoints saved so far are "
      "intact (try a lower learning rate, gradient clipping or normalised rewards)",
      where.num_timesteps, where.what, where.index, what));
}

}  // namespace

double clip_and_check_gradients(const std::vector<torch::Tensor>& params, double max_norm, const torch::Tensor& loss,
                                const UpdateWhere& where) {
  // A loss can be Inf while its gradients stay finite (Huber's are bounded), so both are read.
  const double loss_value = loss.defined() ? loss.detach().item<double>() : 0.0;
  double norm = 0.0;
  if (max_norm > 0) {
    norm = torch::nn::utils::clip_grad_norm_(params, max_norm);
  } else {
    std::vector<torch::Tensor> norms;
    for (const auto& p : params)
      if (p.grad().defined()) norms.push_back(p.grad().detach().norm());
    if (!norms.empty()) norm = torch::stack(norms).norm().item<double>();
  }
  if (std::isfinite(norm) && std::isfinite(loss_value)) [[likely]]
    return norm;
  std::string what = fmt::format("the gradient norm is {}", norm);
  if (loss.defined()) what = fmt::format("the loss is {} and {}", loss_value, what);
  diverged(where, what);
}

void check_finite_gradient(const torch::Tensor& gradient, const UpdateWhere& where) {
  if (torch::isfinite(gradient).all().item<bool>()) [[likely]]
    return;
  const auto bad = torch::logical_not(torch::isfinite(gradient)).sum().item<std::int64_t>();
  diverged(where, fmt::format("{} of the {} gradient entries are NaN or Inf", bad, gradient.numel()));
}

}  // namespace rlzoo
