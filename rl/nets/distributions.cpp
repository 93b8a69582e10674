#include "rl/nets/distributions.h"

#include <cmath>

namespace rlzoo {

Categorical::Categorical(torch::Tensor logits, torch::Tensor mask) : logits_(logits), mask_(mask) {
  if (mask.defined()) logits = logits.masked_fill(mask.logical_not(), -1e8);
  log_probs_ = torch::log_softmax(logits, -1);
}

torch::Tensor Categorical::sample() const { return torch::multinomial(log_probs_.exp(), 1, true).squeeze(-1); }

torch::Tensor Categorical::mode() const { return log_probs_.argmax(-1); }

torch::Tensor Categorical::log_prob(const torch::Tensor& actions) const {
  return log_probs_.gather(-1, actions.to(torch::kInt64).unsqueeze(-1)).squeeze(-1);
}

torch::Tensor Categorical::entropy() const {
  // p * log p with p = 0 for masked actions contributes 0 (exp(-1e8) underflows to 0).
  return -(log_probs_.exp() * log_probs_).sum(-1);
}

DiagGaussian::DiagGaussian(torch::Tensor mean, torch::Tensor log_std)
    : mean_(std::move(mean)), log_std_(log_std.expand_as(mean_)) {}

torch::Tensor DiagGaussian::sample() const { return mean_ + log_std_.exp() * torch::randn_like(mean_); }

torch::Tensor DiagGaussian::log_prob(const torch::Tensor& actions) const {
  const auto z = (actions - mean_) * torch::exp(-log_std_);
  return (-0.5 * z * z - log_std_ - 0.5 * std::log(2.0 * M_PI)).sum(-1);
}

torch::Tensor DiagGaussian::entropy() const { return (log_std_ + 0.5 + 0.5 * std::log(2.0 * M_PI)).sum(-1); }

}  // namespace rlzoo
