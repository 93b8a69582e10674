// Networks built from (observation space, action space) — RLzoo's "adaptive construction":
//   observations: float Box -> flattened; uint8 image Box (H,W,C) -> Nature CNN;
//                 Discrete/MultiDiscrete -> one-hot; MultiBinary -> 0/1 floats;
//                 Dict -> one encoder per field, concatenated.
//   actions:      Discrete -> categorical policy (with legal-action masks) or Q head;
//                 float Box -> diagonal Gaussian with state-independent log-std.
// Anything else is a UserError naming the space.
#pragma once

#include <torch/torch.h>

#include <optional>
#include <variant>
#include <vector>

#include "agents/nets/distributions.h"
#include "agents/nets/layers.h"
#include "agents/nets/policy_config.h"
#include "core/spaces/space.h"

namespace rlzoo {

// Turns the observation tensors of observation_tensors() into one feature vector [B, F].
class ObservationEncoderImpl : public torch::nn::Module {
 public:
  ObservationEncoderImpl(const Space& observation_space, const PolicyConfig& config);
  torch::Tensor forward(const std::vector<torch::Tensor>& fields);
  std::int64_t out_features() const { return out_features_; }

 private:
  torch::Tensor encode(std::size_t i, const torch::Tensor& x);
  std::vector<Space> fields_;
  std::vector<NatureCnn> cnns_;  // one per field; null where the field is not an image
  std::int64_t out_features_ = 0;
};
TORCH_MODULE(ObservationEncoder);

// Either action distribution.
class ActionDistribution {
 public:
  explicit ActionDistribution(Categorical c) : d_(std::move(c)) {}
  explicit ActionDistribution(DiagGaussian g) : d_(std::move(g)) {}
  torch::Tensor sample() const;
  torch::Tensor mode() const;
  torch::Tensor log_prob(const torch::Tensor& actions) const;
  torch::Tensor entropy() const;
  const Categorical* categorical() const { return std::get_if<Categorical>(&d_); }
  const DiagGaussian* gaussian() const { return std::get_if<DiagGaussian>(&d_); }

 private:
  std::variant<Categorical, DiagGaussian> d_;
};

// Policy and value function (PPO, A2C).
class ActorCriticImpl : public torch::nn::Module {
 public:
  ActorCriticImpl(const Space& observation_space, const Space& action_space, const PolicyConfig& config);
  // mask: [B, n] bool legal actions (Discrete only), or undefined.
  std::pair<ActionDistribution, torch::Tensor> forward(const std::vector<torch::Tensor>& obs,
                                                       const torch::Tensor& mask = {});
  torch::Tensor value(const std::vector<torch::Tensor>& obs);
  bool continuous() const { return continuous_; }
  // The learnable log-std (continuous actions only).
  torch::Tensor log_std() const { return log_std_; }

 private:
  ActionDistribution distribution(const torch::Tensor& features, const torch::Tensor& mask);
  bool continuous_;
  bool shared_;
  ObservationEncoder encoder_{nullptr};
  Mlp pi_trunk_{nullptr}, vf_trunk_{nullptr};
  torch::nn::Linear pi_head_{nullptr}, vf_head_{nullptr};
  torch::Tensor log_std_;
};
TORCH_MODULE(ActorCritic);

// Action values for a Discrete action space (DQN), optionally dueling.
class QNetworkImpl : public torch::nn::Module {
 public:
  QNetworkImpl(const Space& observation_space, const Space& action_space, const PolicyConfig& config);
  torch::Tensor forward(const std::vector<torch::Tensor>& obs);  // [B, n]

 private:
  bool dueling_;
  ObservationEncoder encoder_{nullptr};
  Mlp trunk_{nullptr};
  torch::nn::Linear q_head_{nullptr}, v_head_{nullptr};
};
TORCH_MODULE(QNetwork);

// Throws a UserError unless `algorithm` can act in `action_space`.
void require_discrete_actions(const Space& action_space, const std::string& algorithm, const std::string& env_id);

}  // namespace rlzoo
