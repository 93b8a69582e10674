#include "algorithms/pg/gpomdp.h"

namespace rlzoo::pg {

torch::Tensor centred_discounted_rewards(const TrajectoryBatch& b, double gamma, Baseline baseline) {
  const auto h = b.rewards.size(1);
  const auto discount = torch::pow(torch::full({h}, gamma, torch::kFloat64), torch::arange(h, torch::kFloat64));
  auto c = b.rewards * discount * b.mask;
  if (baseline == Baseline::Average) c = (c - c.mean(0, /*keepdim=*/true)) * b.mask;
  return c;
}

torch::Tensor batch_log_probs(PgPolicyImpl& policy, const TrajectoryBatch& b) {
  torch::NoGradGuard no_grad;
  const auto n = b.obs.size(0), h = b.obs.size(1);
  const auto obs = b.obs.reshape({n * h, -1});
  const auto act = policy.continuous() ? b.actions.reshape({n * h, -1}) : b.actions.reshape({n * h});
  return policy.log_prob(obs, act).to(torch::kFloat64).view({n, h}) * b.mask;
}

torch::Tensor importance_weights(const torch::Tensor& logp_old, const torch::Tensor& logp_new,
                                 const torch::Tensor& mask, double clip) {
  auto w = torch::exp(torch::cumsum((logp_old - logp_new) * mask, 1));
  if (clip > 0) w = torch::clamp_max(w, clip);
  return w * mask;
}

torch::Tensor gpomdp_gradient(PgPolicyImpl& policy, const TrajectoryBatch& b, double gamma, Baseline baseline,
                              const torch::Tensor& weights) {
  const auto n = b.obs.size(0), h = b.obs.size(1);
  auto c = centred_discounted_rewards(b, gamma, baseline);
  if (weights.defined()) c = c * weights;
  // sum_{h >= k} c_h: a reversed cumulative sum.
  const auto to_go = torch::flip(torch::cumsum(torch::flip(c, {1}), 1), {1}) * b.mask;
  const auto obs = b.obs.reshape({n * h, -1});
  const auto act = policy.continuous() ? b.actions.reshape({n * h, -1}) : b.actions.reshape({n * h});
  const auto logp = policy.log_prob(obs, act).view({n, h}).to(torch::kFloat64);
  const auto surrogate = (logp * to_go).sum() / static_cast<double>(n);
  auto params = policy.parameters();
  const auto grads = torch::autograd::grad({surrogate}, params, /*grad_outputs=*/{}, /*retain_graph=*/false,
                                           /*create_graph=*/false, /*allow_unused=*/true);
  std::vector<torch::Tensor> parts;
  for (std::size_t i = 0; i < params.size(); ++i)
    parts.push_back(grads[i].defined() ? grads[i].flatten().to(torch::kFloat64)
                                       : torch::zeros({params[i].numel()}, torch::kFloat64));
  return torch::cat(parts);
}

torch::Tensor storm_update(const torch::Tensor& fresh, const torch::Tensor& correction, const torch::Tensor& previous,
                           double alpha) {
  return fresh + (1.0 - alpha) * (previous - correction);
}

torch::Tensor sarah_update(const torch::Tensor& fresh, const torch::Tensor& correction, const torch::Tensor& previous) {
  return previous + fresh - correction;
}

torch::Tensor svrg_update(const torch::Tensor& fresh, const torch::Tensor& correction,
                          const torch::Tensor& snapshot_mean) {
  return snapshot_mean + fresh - correction;
}

}  // namespace rlzoo::pg
