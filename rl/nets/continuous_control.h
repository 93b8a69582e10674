// The networks of the off-policy continuous-control learners (SAC, TD3, DDPG), as
// Stable-Baselines3 builds them (sac/policies.py, td3/policies.py): observations through the
// shared encoder (networks.h), then MLPs. Everything is in [-1, 1] action units: the agents
// rescale actions to the Box's bounds, and back when they learn from stored ones.
//
//   SquashedGaussianActor: trunk -> mean and log-std heads (the log-std clamped to [-20, 2]);
//     the action is tanh(u), u ~ N(mean, std) (sac_loss.h has its log-probability). With
//     gSDE (generalized State-Dependent Exploration, Raffin et al. 2021, as SB3's
//     StateDependentNoiseDistribution with full_std, no expln, learned features): the head
//     gives the mean only, clipped to [-2, 2] (SB3's clip_mean), and a parameter log_std
//     [latent, action_dim] scales the noise: u = mean + latent exploration_matrix.
//   DeterministicActor:    trunk -> head -> tanh (TD3, DDPG).
//   ContinuousCritic:      n_critics Q(s, a) MLPs on [features, action].
//
// Each MLP runs as a fused chain (fused_mlp.h) where it can, as the other small networks do.
#pragma once

#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>

#include <optional>
#include <utility>
#include <vector>

#include "rl/nets/fused_mlp.h"
#include "rl/nets/layers.h"
#include "rl/nets/networks.h"
#include "rl/nets/policy_config.h"
#include "core/spaces/space.h"

namespace rlzoo {

// SB3's bounds on the Gaussian's log-std (sac/policies.py LOG_STD_MIN, LOG_STD_MAX).
constexpr double kLogStdMin = -20.0, kLogStdMax = 2.0;

// SB3's clip_mean for gSDE actors.
constexpr double kSdeClipMean = 2.0;

class SquashedGaussianActorImpl : public torch::nn::Module {
 public:
  // sde: a gSDE actor, its log_std starting at config.log_std_init.
  SquashedGaussianActorImpl(const Space& observation_space, std::int64_t action_dim, const PolicyConfig& config,
                            bool sde = false);
  // The Gaussian's mean and clamped log-std before the tanh, [B, action_dim] each (not gSDE).
  std::pair<torch::Tensor, torch::Tensor> forward(const std::vector<torch::Tensor>& obs);
  // gSDE: the mean before the tanh [B, action_dim] (clipped to +-kSdeClipMean) and the latent
  // features the noise multiplies [B, latent].
  std::pair<torch::Tensor, torch::Tensor> forward_sde(const std::vector<torch::Tensor>& obs);
  // The mean before the tanh, either kind.
  torch::Tensor mean(const std::vector<torch::Tensor>& obs);
  bool sde() const { return log_std_.defined(); }
  // gSDE's [latent, action_dim] log-std (undefined otherwise).
  const torch::Tensor& sde_log_std() const { return log_std_; }
  std::int64_t action_dim() const { return action_dim_; }
  std::int64_t latent_dim() const { return trunk_->out_features(); }
  // The trunk and head as one fused chain on raw rows ([mean, log-std before the clamp]), for
  // updates written as plain passes; null for gSDE or where the observation is not one float32
  // Box (the encoder would change it).
  const FusedMlp* plain_chain() const { return encoder_->passes_float_rows() && fused_ ? &*fused_ : nullptr; }

 private:
  std::int64_t action_dim_;
  torch::Tensor log_std_;
  ObservationEncoder encoder_{nullptr};
  Mlp trunk_{nullptr};
  torch::nn::Linear head_{nullptr};  // [mean, log-std]: one layer of 2 x action_dim outputs
  std::optional<FusedMlp> fused_;
};
TORCH_MODULE(SquashedGaussianActor);

class DeterministicActorImpl : public torch::nn::Module {
 public:
  DeterministicActorImpl(const Space& observation_space, std::int64_t action_dim, const PolicyConfig& config);
  torch::Tensor forward(const std::vector<torch::Tensor>& obs);  // [B, action_dim] in [-1, 1]
  // As SquashedGaussianActor::plain_chain: the output before the tanh.
  const FusedMlp* plain_chain() const { return encoder_->passes_float_rows() && fused_ ? &*fused_ : nullptr; }

 private:
  ObservationEncoder encoder_{nullptr};
  Mlp trunk_{nullptr};
  torch::nn::Linear head_{nullptr};
  std::optional<FusedMlp> fused_;
};
TORCH_MODULE(DeterministicActor);

class ContinuousCriticImpl : public torch::nn::Module {
 public:
  ContinuousCriticImpl(const Space& observation_space, std::int64_t action_dim, const PolicyConfig& config,
                       int n_critics);
  // Every critic's Q(obs, actions): [n_critics, B]. actions: [B, action_dim] in [-1, 1].
  torch::Tensor forward(const std::vector<torch::Tensor>& obs, const torch::Tensor& actions);
  // The first critic's alone, [B] (TD3's actor loss).
  torch::Tensor q1(const std::vector<torch::Tensor>& obs, const torch::Tensor& actions);
  int n_critics() const { return static_cast<int>(trunks_.size()); }
  // Critic i as one fused chain on raw rows [observation, action] -> [Q], or null (as
  // SquashedGaussianActor::plain_chain).
  const FusedMlp* plain_chain(int i) const {
    const auto& f = fused_[static_cast<std::size_t>(i)];
    return encoder_->passes_float_rows() && f ? &*f : nullptr;
  }

 private:
  torch::Tensor q(std::size_t i, const torch::Tensor& input);
  ObservationEncoder encoder_{nullptr};
  std::vector<Mlp> trunks_;
  std::vector<torch::nn::Linear> heads_;
  std::vector<std::optional<FusedMlp>> fused_;
};
TORCH_MODULE(ContinuousCritic);

}  // namespace rlzoo
