#include "rl/gradient_guard.h"

#include <cmath>
#include <optional>
#include <utility>

#include <fmt/format.h>
#include <torch/nn/utils/clip_grad.h>

#include "core/torch/plain_tensor.h"

namespace rlzoo {

namespace {

[[noreturn]] void diverged(const UpdateWhere& where, const std::string& what) {
  throw TrainingDiverged(fmt::format(
      "training diverged at step {} ({} {}): {}; the parameters were not updated and the checkpoints saved so far are "
      "intact (try a lower learning rate, gradient clipping or normalised rewards)",
      where.num_timesteps, where.what, where.index, what));
}

// The gradients as raw float arrays when every defined one is a plain float32 CPU tensor (the
// small networks' case), else nothing: then LibTorch's operations do the work.
std::optional<std::vector<std::pair<float*, std::int64_t>>> plain_gradients(const std::vector<torch::Tensor>& params) {
  std::vector<std::pair<float*, std::int64_t>> out;
  out.reserve(params.size());
  for (const auto& p : params) {
    const auto& g = p.grad();
    if (!g.defined()) continue;
    if (!is_plain_cpu(g, torch::kFloat32) || g.requires_grad())
      return std::nullopt;
    out.emplace_back(g.data_ptr<float>(), g.numel());
  }
  return out;
}

// The global L2 norm in double, and the gradients scaled as clip_grad_norm_ scales them
// (max_norm / (norm + 1e-6) when that is below 1), in one pass each.
double clip_plain(const std::vector<std::pair<float*, std::int64_t>>& grads, double max_norm) {
  // Four running sums (combined in a fixed order): one would wait on its own latency per element.
  double lanes[4] = {0.0, 0.0, 0.0, 0.0};
  for (const auto& [g, n] : grads) {
    std::int64_t i = 0;
    for (; i + 4 <= n; i += 4)
      for (int l = 0; l < 4; ++l) lanes[l] += static_cast<double>(g[i + l]) * g[i + l];
    for (; i < n; ++i) lanes[0] += static_cast<double>(g[i]) * g[i];
  }
  const double norm = std::sqrt((lanes[0] + lanes[1]) + (lanes[2] + lanes[3]));
  if (max_norm > 0 && std::isfinite(norm)) {
    const auto coef = static_cast<float>(max_norm / (norm + 1e-6));
    if (coef < 1.0f)
      for (const auto& [g, n] : grads)
        for (std::int64_t i = 0; i < n; ++i) g[i] *= coef;
  }
  return norm;
}

}  // namespace

namespace {

double clip_and_check(const std::vector<torch::Tensor>& params, double max_norm, std::optional<double> loss,
                      const UpdateWhere& where) {
  double norm = 0.0;
  if (const auto plain = plain_gradients(params)) {
    norm = clip_plain(*plain, max_norm);
  } else if (max_norm > 0) {
    norm = torch::nn::utils::clip_grad_norm_(params, max_norm);
  } else {
    std::vector<torch::Tensor> norms;
    for (const auto& p : params)
      if (p.grad().defined()) norms.push_back(p.grad().detach().norm());
    if (!norms.empty()) norm = torch::stack(norms).norm().item<double>();
  }
  if (std::isfinite(norm) && std::isfinite(loss.value_or(0.0))) [[likely]]
    return norm;
  std::string what = fmt::format("the gradient norm is {}", norm);
  if (loss) what = fmt::format("the loss is {} and {}", *loss, what);
  diverged(where, what);
}

}  // namespace

double clip_and_check_gradients(const std::vector<torch::Tensor>& params, double max_norm, const torch::Tensor& loss,
                                const UpdateWhere& where) {
  // A loss can be Inf while its gradients stay finite (Huber's are bounded), so both are read.
  return clip_and_check(params, max_norm,
                        loss.defined() ? std::optional<double>(loss.detach().item<double>()) : std::nullopt, where);
}

double clip_and_check_gradients(const std::vector<torch::Tensor>& params, double max_norm, double loss,
                                const UpdateWhere& where) {
  return clip_and_check(params, max_norm, loss, where);
}

void check_finite_gradient(const torch::Tensor& gradient, const UpdateWhere& where) {
  if (torch::isfinite(gradient).all().item<bool>()) [[likely]]
    return;
  const auto bad = torch::logical_not(torch::isfinite(gradient)).sum().item<std::int64_t>();
  diverged(where, fmt::format("{} of the {} gradient entries are NaN or Inf", bad, gradient.numel()));
}

}  // namespace rlzoo
