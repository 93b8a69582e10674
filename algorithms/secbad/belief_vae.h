// The belief VAE of SeCBAD and VariBAD (notes §2.3): an encoder q(c | transitions) and the
// decoders that train it.
//
// Encoder input at step t (t = 1, 2, ...): the action a_{t-1} that led to s_t, the state s_t
// and the reward r_t, each embedded by Linear + ReLU, concatenated, into a GRU cell; linear heads
// give the Gaussian latent (mu, log sigma^2). The prior is the heads on a zero hidden state.
// The reward decoder predicts r_t from z, s_t, a_{t-1} and s_{t-1} (the state embedding is the
// encoder's); the optional task decoder regresses the true context from z.
//
// Episodes for training are kept in EpisodeBuffer; vae_loss() encodes a batch with the GRU reset
// at segment starts (SeCBAD) or only at the episode start (VariBAD) and decodes, for each ELBO
// index t, the rewards of the steps in t's segment (the whole episode when not segmented).
#pragma once

#include <torch/nn/module.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/rnn.h>

#include <deque>
#include <vector>

#include "algorithms/secbad/secbad_config.h"
#include "core/common/rng.h"

namespace rlzoo::secbad {

class BeliefEncoderImpl : public torch::nn::Module {
 public:
  // action_dim: one-hot size (Discrete) or vector size (Box).
  BeliefEncoderImpl(std::int64_t state_dim, std::int64_t action_dim, const VaeConfig& cfg);
  // Per-step input rows [B, in] from a_{t-1} [B, action_dim], s_t [B, state_dim], r_t [B].
  torch::Tensor input(const torch::Tensor& prev_action, const torch::Tensor& state, const torch::Tensor& reward);
  torch::Tensor step(const torch::Tensor& input, const torch::Tensor& hidden) { return gru_->forward(input, hidden); }
  // (mu, logvar) [B, latent] from hidden states [B, H].
  std::pair<torch::Tensor, torch::Tensor> latent(const torch::Tensor& hidden);
  torch::Tensor zero_hidden(std::int64_t batch) const { return torch::zeros({batch, hidden_}); }
  torch::Tensor embed_state(const torch::Tensor& s) { return torch::relu(state_embed_->forward(s)); }
  torch::Tensor embed_action(const torch::Tensor& a);
  torch::nn::GRUCell gru() const { return gru_; }
  std::int64_t latent_dim() const { return latent_dim_; }
  std::int64_t state_embed_dim() const { return state_embed_->options.out_features(); }
  std::int64_t action_embed_dim() const { return action_embed_ ? action_embed_->options.out_features() : 0; }

 private:
  std::int64_t hidden_, latent_dim_;
  torch::nn::Linear action_embed_{nullptr}, state_embed_{nullptr}, reward_embed_{nullptr};
  torch::nn::GRUCell gru_{nullptr};
  torch::nn::Linear mu_{nullptr}, logvar_{nullptr};
};
TORCH_MODULE(BeliefEncoder);

// r_hat(z, s_t, a_{t-1}, s_{t-1}) through an MLP (ReLU), with the encoder's embeddings.
class RewardDecoderImpl : public torch::nn::Module {
 public:
  RewardDecoderImpl(const BeliefEncoder& encoder, const std::vector<std::int64_t>& hidden);
  // z [B, latent], states [B, S], prev actions [B, A], prev states [B, S] -> [B].
  torch::Tensor forward(BeliefEncoder& encoder, const torch::Tensor& z, const torch::Tensor& state,
                        const torch::Tensor& prev_action, const torch::Tensor& prev_state);

 private:
  torch::nn::Sequential mlp_;
};
TORCH_MODULE(RewardDecoder);

// One finished episode, as the VAE trains on it (T steps).
struct Episode {
  torch::Tensor states;         // [T + 1, S]: s_0 .. s_T
  torch::Tensor actions;        // [T, A]: a_0 .. a_{T-1} (one-hot for Discrete)
  torch::Tensor rewards;        // [T]: r_1 .. r_T
  torch::Tensor segment_start;  // [T] bool: step t begins a segment (true at t = 1)
  torch::Tensor contexts;       // [T, C] the true context of each step (empty when unknown)
  std::int64_t length() const { return rewards.size(0); }
};

class EpisodeBuffer {
 public:
  explicit EpisodeBuffer(std::int64_t capacity) : capacity_(capacity) {}
  void add(Episode e);
  std::int64_t size() const { return static_cast<std::int64_t>(episodes_.size()); }
  // Oldest first (what add() kept; a checkpoint adds them back in this order).
  const std::deque<Episode>& episodes() const { return episodes_; }
  // `n` episodes drawn uniformly with replacement.
  std::vector<const Episode*> sample(std::int64_t n, Rng& rng) const;

 private:
  std::int64_t capacity_;
  std::deque<Episode> episodes_;
};

// z [.., latent] -> the context [.., context_dim] (MLP, ReLU).
torch::nn::Sequential make_task_decoder(std::int64_t latent, const std::vector<std::int64_t>& hidden,
                                        std::int64_t context_dim);

struct VaeLoss {
  torch::Tensor total;
  double reward = 0, kl = 0, task = 0;
};

// The VAE loss of a batch. segmented: GRU resets and decode targets follow segment_start.
VaeLoss vae_loss(BeliefEncoder& encoder, RewardDecoder& reward_decoder, torch::nn::Sequential* task_decoder,
                 const std::vector<const Episode*>& batch, bool segmented, const VaeConfig& cfg, Rng& rng);

// KL(N(mu1, var1) || N(mu2, var2)) summed over the last dimension.
torch::Tensor gaussian_kl(const torch::Tensor& mu1, const torch::Tensor& logvar1, const torch::Tensor& mu2,
                          const torch::Tensor& logvar2);

}  // namespace rlzoo::secbad
