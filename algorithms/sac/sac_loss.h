// Soft Actor-Critic's arithmetic (Haarnoja et al. 2018, as Stable-Baselines3's sac/sac.py
// computes it), as functions of tensors so that tests check each against a hand computation:
// the squashed Gaussian's sample and log-probability, the critics' target and loss, the actor's
// loss and the entropy coefficient's loss. Actions are in [-1, 1] units.
#pragma once

#include "core/torch/tensor.h"

namespace rlzoo {

// a = tanh(u), u = mean + exp(log_std) * noise (the reparameterised draw), and log pi(a): the
// Gaussian's log-density of u summed over the action dimensions, minus the tanh's
// log-Jacobian sum_j log(1 - tanh(u_j)^2), computed as 2 (log 2 - u - softplus(-2u)) (exact,
// and finite where 1 - tanh^2 rounds to 0). mean, log_std, noise: [B, d]; log_prob: [B].
struct SquashedSample {
  torch::Tensor actions, log_prob;
};
SquashedSample squashed_gaussian_sample(const torch::Tensor& mean, const torch::Tensor& log_std,
                                        const torch::Tensor& noise);
// gSDE's draw (SB3's StateDependentNoiseDistribution, full_std, learned features): the
// exploration matrix exp(log_std) * weights_noise [L, d] (one for the whole batch), u = mean +
// latent matrix, and log pi(tanh(u)) under N(mean, latent^2 exp(log_std)^2 + 1e-6), with the
// same tanh correction. mean [B, d], latent [B, L], log_std and weights_noise [L, d].
SquashedSample squashed_sde_sample(const torch::Tensor& mean, const torch::Tensor& latent, const torch::Tensor& log_std,
                                   const torch::Tensor& weights_noise);
// log pi(tanh(u)) for pre-squash values u [B, d].
torch::Tensor squashed_gaussian_log_prob(const torch::Tensor& u, const torch::Tensor& mean, const torch::Tensor& log_std);

// The critics' regression target: r + discount (1 - terminated) (min_i Q'_i(s', a') - alpha
// log pi(a' | s')), with next_q [n_critics, B] from the target critics at a' ~ pi(s'), and
// discount gamma^m for an m-step sample. Every argument but next_q is [B].
torch::Tensor sac_critic_target(const torch::Tensor& next_q, const torch::Tensor& next_log_prob,
                                const torch::Tensor& rewards, const torch::Tensor& discounts,
                                const torch::Tensor& terminated, double alpha);
// 0.5 * sum over critics of mean((Q_i - target)^2); current_q [n_critics, B], target [B].
torch::Tensor sac_critic_loss(const torch::Tensor& current_q, const torch::Tensor& target);
// mean(alpha log pi(a|s) - min_i Q_i(s, a)) at a ~ pi(s); q_pi [n_critics, B], log_prob [B].
torch::Tensor sac_actor_loss(const torch::Tensor& q_pi, const torch::Tensor& log_prob, double alpha);
// -mean(log_alpha * (log pi + target_entropy)), log pi held constant: its gradient moves
// log_alpha towards the entropy target.
torch::Tensor sac_entropy_loss(const torch::Tensor& log_alpha, const torch::Tensor& log_prob, double target_entropy);

}  // namespace rlzoo
