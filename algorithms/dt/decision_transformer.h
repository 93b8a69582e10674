// The Decision Transformer's model (Chen et al. 2021; notes §3.1) and the MLP behaviour-cloning
// baseline, both mapping a window of K steps to action predictions.
//
// Inputs, batch B and window K (left-padded; `valid` marks the real steps):
//   states [B, K, S] float (normalised), actions [B, K, A] float (continuous, in [-1, 1]) or
//   [B, K] int64 (discrete), rtg [B, K] float (returns-to-go / rtg_scale), timesteps [B, K] int64,
//   valid [B, K] bool.
// Tokens are (R̂_t, s_t, a_t) per step, each embedding plus the step's timestep embedding, then
// LayerNorm and dropout into a causal transformer; the action of step t is read from the hidden
// state of the s_t token, so it depends on R̂_≤t, s_≤t and a_<t only.
// Output [B, K, A]: tanh-bounded actions (continuous) or logits (discrete).
#pragma once

#include <torch/nn/module.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/dropout.h>
#include <torch/nn/modules/embedding.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/normalization.h>

#include "rl/nets/transformer.h"

namespace rlzoo::dt {

struct SequenceModelOptions {
  std::int64_t state_dim = 0;
  std::int64_t action_dim = 0;  // continuous: dimensions; discrete: number of actions
  bool discrete = false;
  std::int64_t max_ep_len = 1000;
  TransformerOptions transformer;
};

class DecisionTransformerImpl : public torch::nn::Module {
 public:
  explicit DecisionTransformerImpl(const SequenceModelOptions& o);
  torch::Tensor forward(const torch::Tensor& states, const torch::Tensor& actions, const torch::Tensor& rtg,
                        const torch::Tensor& timesteps, const torch::Tensor& valid);

 private:
  SequenceModelOptions o_;
  torch::nn::Embedding embed_timestep_{nullptr}, embed_discrete_action_{nullptr};
  torch::nn::Linear embed_return_{nullptr}, embed_state_{nullptr}, embed_action_{nullptr}, predict_action_{nullptr};
  torch::nn::LayerNorm embed_ln_{nullptr};
  torch::nn::Dropout embed_drop_{nullptr};
  Transformer transformer_{nullptr};
};
TORCH_MODULE(DecisionTransformer);

// Behaviour cloning: an MLP (with dropout) on the last `context` states of the window,
// flattened, predicting the last step's action (the DT repository's MLPBCModel). The forward
// signature is the sequence model's; only the last position of the output is meaningful and
// trained.
class BcMlpImpl : public torch::nn::Module {
 public:
  BcMlpImpl(const SequenceModelOptions& o, std::int64_t context, const std::vector<std::int64_t>& hidden,
            const std::string& activation, double dropout);
  torch::Tensor forward(const torch::Tensor& states, const torch::Tensor& valid);

 private:
  SequenceModelOptions o_;
  std::int64_t context_;
  torch::nn::Sequential mlp_{nullptr};
};
TORCH_MODULE(BcMlp);

// Mean over valid steps of the action loss: squared error summed over action dimensions
// divided by A (MSE, continuous) or cross-entropy (discrete). target: as `actions` above.
torch::Tensor action_loss(const torch::Tensor& predicted, const torch::Tensor& target, const torch::Tensor& valid,
                          bool discrete);

}  // namespace rlzoo::dt
