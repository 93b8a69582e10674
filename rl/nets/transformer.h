// GPT-2-style transformer blocks (pre-LayerNorm), for sequence models such as the Decision
// Transformer (algorithms/dt).
//
//   Transformer net(TransformerOptions{.width = 128, .layers = 3, .heads = 1});
//   auto h = net->forward(tokens /*[B, L, width]*/, valid /*[B, L] bool, or undefined*/);
//
// Attention is causal (token i sees tokens 0..i) and never attends to keys marked invalid in
// `valid` (left padding). A query whose every visible key is padding gets a uniform average of
// them, never NaN; such outputs are meaningless and are for the caller to ignore (mask the loss).
#pragma once

#include <torch/nn/module.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/dropout.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/normalization.h>

#include <string>

namespace rlzoo {

struct TransformerOptions {
  std::int64_t width = 128;
  std::int64_t layers = 3;
  std::int64_t heads = 1;
  std::int64_t mlp_ratio = 4;      // the MLP's inner width is mlp_ratio * width
  double dropout = 0.1;            // on attention weights, residual branches (and embeddings, by callers)
  std::string activation = "relu";  // any name of make_activation (rl/nets/layers.h)
};

// Multi-head causal self-attention with a key-padding mask.
class CausalSelfAttentionImpl : public torch::nn::Module {
 public:
  CausalSelfAttentionImpl(std::int64_t width, std::int64_t heads, double dropout);
  // x [B, L, width]; valid [B, L] bool (true: a real token) or undefined (all real).
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& valid = {});

 private:
  std::int64_t heads_;
  torch::nn::Linear qkv_{nullptr}, proj_{nullptr};
  torch::nn::Dropout attn_drop_{nullptr}, resid_drop_{nullptr};
};
TORCH_MODULE(CausalSelfAttention);

// x + attn(LN(x)), then x + mlp(LN(x)).
class TransformerBlockImpl : public torch::nn::Module {
 public:
  explicit TransformerBlockImpl(const TransformerOptions& o);
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& valid = {});

 private:
  torch::nn::LayerNorm ln1_{nullptr}, ln2_{nullptr};
  CausalSelfAttention attn_{nullptr};
  torch::nn::Sequential mlp_{nullptr};
};
TORCH_MODULE(TransformerBlock);

// `layers` blocks and a final LayerNorm.
class TransformerImpl : public torch::nn::Module {
 public:
  explicit TransformerImpl(const TransformerOptions& o);
  torch::Tensor forward(torch::Tensor x, const torch::Tensor& valid = {});
  std::int64_t width() const { return width_; }

 private:
  std::int64_t width_;
  torch::nn::ModuleList blocks_{nullptr};
  torch::nn::LayerNorm ln_f_{nullptr};
};
TORCH_MODULE(Transformer);

// GPT-2's initialisation for every submodule of `module`: Linear and Embedding weights
// ~ N(0, std), biases 0, LayerNorm weight 1 and bias 0.
void gpt2_init(torch::nn::Module& module, double std = 0.02);

}  // namespace rlzoo
