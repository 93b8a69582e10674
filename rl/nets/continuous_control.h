// The networks of the off-policy continuous-control learners (SAC, TD3, DDPG), as
// Stable-Baselines3 builds them (sac/policies.py, td3/policies.py): observations through the
// shared encoder (networks.h), then MLPs. Everything is in [-1, 1] action units: the agents
// rescale actions to the Box's bounds, and back when they learn from stored ones.
//
//   SquashedGaussianActor: trunk -> mean and log-std heads (the log-std clamped to [-20, 2]);
//     the action is tanh(u), u ~ N(mean, std) (sac_loss.h has its log-probability).
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

class SquashedGaussianActorImpl : public torch::nn::Module {
 public:
  SquashedGaussianActorImpl(const Space& observation_space, std::int64_t action_dim, const PolicyConfig& config);
  // The Gaussian's mean and clamped log-std before the tanh, [B, action_dim] each.
  std::pair<torch::Tensor, torch::Tensor> forward(const std::vector<torch::Tensor>& obs);
  std::int64_t action_dim() const { return action_dim_; }

 private:
  std::int64_t action_dim_;
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

 private:
  torch::Tensor q(std::size_t i, const torch::Tensor& input);
  ObservationEncoder encoder_{nullptr};
  std::vector<Mlp> trunks_;
  std::vector<torch::nn::Linear> heads_;
  std::vector<std::optional<FusedMlp>> fused_;
};
TORCH_MODULE(ContinuousCritic);

}  // namespace rlzoo
