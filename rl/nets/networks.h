// Networks built from (observation space, action space) — RLzoo's "adaptive construction":
//   observations: float Box -> flattened; uint8 image Box (H,W,C) -> Nature CNN;
//                 Discrete/MultiDiscrete -> one-hot; MultiBinary -> 0/1 floats;
//                 Dict -> one encoder per field, concatenated.
//   actions:      Discrete -> categorical policy (with legal-action masks) or Q head;
//                 float Box -> diagonal Gaussian with state-independent log-std.
// Anything else is a UserError naming the space.
#pragma once

#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>

#include <optional>
#include <variant>
#include <vector>

#include "rl/nets/distributions.h"
#include "rl/nets/fused_mlp.h"
#include "rl/nets/layers.h"
#include "rl/nets/policy_config.h"
#include "core/spaces/space.h"

namespace rlzoo {

// The Linear layers of `trunk` followed by `head` (null: none) as one fused chain, or nothing
// when the trunk's activation is not one the fused path computes (or there are no layers).
std::optional<FusedMlp> fused_chain(const Mlp& trunk, const torch::nn::Linear& head);

// Turns the observation tensors of observation_tensors() into one feature vector [B, F].
class ObservationEncoderImpl : public torch::nn::Module {
 public:
  ObservationEncoderImpl(const Space& observation_space, const PolicyConfig& config);
  torch::Tensor forward(const std::vector<torch::Tensor>& fields);
  std::int64_t out_features() const { return out_features_; }
  // Whether the features are the observation's float32 values as they are: one float32 Box.
  bool passes_float_rows() const;

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

// Policy and value function (PPO, A2C). Feed-forward: encoder -> MLP trunks -> heads. With
// config.recurrent: encoder -> RNN (the actor's; the critic's own, or the actor's when shared)
// -> MLP trunks -> heads, as SB3-contrib's MlpLstmPolicy (shared: CleanRL's ppo_atari_lstm).
class ActorCriticImpl : public torch::nn::Module {
 public:
  ActorCriticImpl(const Space& observation_space, const Space& action_space, const PolicyConfig& config);
  // Feed-forward policies. mask: [B, n] bool legal actions (Discrete only), or undefined.
  std::pair<ActionDistribution, torch::Tensor> forward(const std::vector<torch::Tensor>& obs,
                                                       const torch::Tensor& mask = {});
  torch::Tensor value(const std::vector<torch::Tensor>& obs);

  // Recurrent policies. The state of B sequences is one tensor [S, layers, B, hidden], the
  // batch at dimension 2: S = 1 (GRU) or 2 (LSTM: h, c), doubled when the critic has its own
  // RNN. Zeros are the state at an episode start.
  bool recurrent() const { return !rnn_.is_empty(); }
  torch::Tensor initial_state(std::int64_t batch) const;
  struct SequenceOutput {
    ActionDistribution dist;  // over T * B rows
    torch::Tensor values;     // [T * B]
    torch::Tensor state;      // after the last step
  };
  // T steps of B sequences: obs fields [T * B, ...] time-major (row t * B + b), `state` before
  // the first step, episode_start [T, B] bool (the state is zeroed before a step that starts an
  // episode), mask [T * B, n] or undefined. One step of B envs is T = 1.
  SequenceOutput forward_sequence(const std::vector<torch::Tensor>& obs, const torch::Tensor& state,
                                  const torch::Tensor& episode_start, const torch::Tensor& mask = {});

  bool continuous() const { return continuous_; }
  // The learnable log-std (continuous actions only).
  torch::Tensor log_std() const { return log_std_; }

  // Whether the trunks and heads run as fused small-MLP chains (rl/nets/fused_mlp.h) where they
  // can: separate tanh or ReLU trunks, CPU float32. On by default; off runs the LibTorch modules
  // (the same parameters, the same results to float rounding).
  void use_fused_path(bool on) { use_fused_ = on; }
  bool fused_path() const { return use_fused_ && fused_pi_.has_value(); }

  // forward() for acting on a few rows without tensors: the actor head's output (the means or
  // the logits, [rows, n]) and the values ([rows]) for `rows` float32 observations, the same
  // numbers as forward() gives. False (nothing written) unless the policy is feed-forward on
  // the fused path, the observation is one float32 Box and the parameters are plain CPU ones.
  bool plain_heads(const float* obs, std::int64_t rows, float* head_out, float* values,
                   std::vector<float>& scratch) const;
  // The actor's and the critic's chains (trunk and head each) on raw float32 rows, for PPO's
  // plain-pass update (algorithms/ppo/ppo_fused_update.h); both null unless the policy is
  // feed-forward on the fused path and the observation is one float32 Box (the parameters are
  // not checked: FusedMlp::plain_parameters()).
  std::pair<const FusedMlp*, const FusedMlp*> plain_chains() const;

 private:
  ActionDistribution distribution(const torch::Tensor& head_out, const torch::Tensor& mask);
  // Heads on the trunk inputs of the actor and the critic (the same tensor, or not).
  std::pair<ActionDistribution, torch::Tensor> heads(const torch::Tensor& pi_in, const torch::Tensor& vf_in,
                                                     const torch::Tensor& mask);
  bool continuous_;
  bool shared_;
  ObservationEncoder encoder_{nullptr};
  RecurrentEncoder rnn_{nullptr}, critic_rnn_{nullptr};  // null: feed-forward / shared RNN
  std::int64_t rnn_state_rows_ = 0;                      // S of one RNN (1 or 2)
  Mlp pi_trunk_{nullptr}, vf_trunk_{nullptr};
  torch::nn::Linear pi_head_{nullptr}, vf_head_{nullptr};
  torch::Tensor log_std_;
  std::optional<FusedMlp> fused_pi_, fused_vf_;  // trunk + head of each, where fusable
  bool use_fused_ = true;
};
TORCH_MODULE(ActorCritic);

// Action values for a Discrete action space (DQN), optionally dueling.
class QNetworkImpl : public torch::nn::Module {
 public:
  QNetworkImpl(const Space& observation_space, const Space& action_space, const PolicyConfig& config);
  torch::Tensor forward(const std::vector<torch::Tensor>& obs);  // [B, n]

  // As ActorCriticImpl::use_fused_path: the trunk and Q head (the trunk alone when dueling) as a
  // fused chain where it can.
  void use_fused_path(bool on) { use_fused_ = on; }
  bool fused_path() const { return use_fused_ && fused_.has_value(); }
  // The whole network (trunk and Q head) as one fused chain on raw float32 rows, for acting
  // and for DQN's plain-pass update; null when dueling, with the fused path off, or where the
  // observation is not one float32 Box.
  const FusedMlp* plain_chain() const {
    return fused_path() && !dueling_ && encoder_->passes_float_rows() ? &*fused_ : nullptr;
  }

 private:
  std::optional<FusedMlp> fused_;
  bool use_fused_ = true;
  bool dueling_;
  ObservationEncoder encoder_{nullptr};
  Mlp trunk_{nullptr};
  torch::nn::Linear q_head_{nullptr}, v_head_{nullptr};
};
TORCH_MODULE(QNetwork);

// Throws a UserError unless `algorithm` can act in `action_space`.
void require_discrete_actions(const Space& action_space, const std::string& algorithm, const std::string& env_id);

}  // namespace rlzoo
