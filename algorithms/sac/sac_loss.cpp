#include "algorithms/sac/sac_loss.h"

#include <cmath>

namespace rlzoo {

torch::Tensor squashed_gaussian_log_prob(const torch::Tensor& u, const torch::Tensor& mean,
                                         const torch::Tensor& log_std) {
  const auto z = (u - mean) * torch::exp(-log_std);
  const auto gaussian = (-0.5 * z * z - log_std - 0.5 * std::log(2.0 * M_PI)).sum(-1);
  const auto log_jacobian = (2.0 * (std::log(2.0) - u - torch::nn::functional::softplus(-2.0 * u))).sum(-1);
  return gaussian - log_jacobian;
}

SquashedSample squashed_gaussian_sample(const torch::Tensor& mean, const torch::Tensor& log_std,
                                        const torch::Tensor& noise) {
  const auto u = mean + torch::exp(log_std) * noise;
  return {torch::tanh(u), squashed_gaussian_log_prob(u, mean, log_std)};
}

SquashedSample squashed_sde_sample(const torch::Tensor& mean, const torch::Tensor& latent, const torch::Tensor& log_std,
                                   const torch::Tensor& weights_noise) {
  const auto std_dev = torch::exp(log_std);
  const auto u = mean + latent.mm(std_dev * weights_noise);
  // SB3's epsilon in the variance keeps log-std finite where the latent features are all 0.
  const auto noise_log_std = 0.5 * torch::log(latent.pow(2).mm(std_dev.pow(2)) + 1e-6);
  return {torch::tanh(u), squashed_gaussian_log_prob(u, mean, noise_log_std)};
}

torch::Tensor sac_critic_target(const torch::Tensor& next_q, const torch::Tensor& next_log_prob,
                                const torch::Tensor& rewards, const torch::Tensor& discounts,
                                const torch::Tensor& terminated, double alpha) {
  const auto soft_value = std::get<0>(next_q.min(0)) - alpha * next_log_prob;
  return rewards + discounts * (1.0 - terminated) * soft_value;
}

torch::Tensor sac_critic_loss(const torch::Tensor& current_q, const torch::Tensor& target) {
  return 0.5 * (current_q - target.unsqueeze(0)).pow(2).mean(1).sum();
}

torch::Tensor sac_actor_loss(const torch::Tensor& q_pi, const torch::Tensor& log_prob, double alpha) {
  return (alpha * log_prob - std::get<0>(q_pi.min(0))).mean();
}

torch::Tensor sac_entropy_loss(const torch::Tensor& log_alpha, const torch::Tensor& log_prob, double target_entropy) {
  return -(log_alpha * (log_prob + target_entropy).detach()).mean();
}

}  // namespace rlzoo
