#include "rl/nets/transformer.h"

#include <cmath>

#include "rl/nets/layers.h"
#include <fmt/format.h>

#include "core/common/error.h"

namespace rlzoo {

CausalSelfAttentionImpl::CausalSelfAttentionImpl(std::int64_t width, std::int64_t heads, double dropout)
    : heads_(heads) {
  if (heads < 1 || width % heads != 0)
    throw UserError(fmt::format("transformer: width {} must be a positive multiple of heads {}", width, heads));
  qkv_ = register_module("qkv", torch::nn::Linear(width, 3 * width));
  proj_ = register_module("proj", torch::nn::Linear(width, width));
  attn_drop_ = register_module("attn_drop", torch::nn::Dropout(dropout));
  resid_drop_ = register_module("resid_drop", torch::nn::Dropout(dropout));
}

torch::Tensor CausalSelfAttentionImpl::forward(const torch::Tensor& x, const torch::Tensor& valid) {
  const auto B = x.size(0), L = x.size(1), D = x.size(2), dh = D / heads_;
  auto qkv = qkv_->forward(x).view({B, L, 3, heads_, dh}).permute({2, 0, 3, 1, 4});  // [3, B, h, L, dh]
  const auto q = qkv[0], k = qkv[1], v = qkv[2];
  auto scores = torch::matmul(q, k.transpose(-2, -1)) / std::sqrt(static_cast<double>(dh));  // [B, h, L, L]
  auto allowed = torch::ones({L, L}, x.options().dtype(torch::kBool)).tril();               // [L, L]
  if (valid.defined()) allowed = allowed & valid.to(torch::kBool).view({B, 1, 1, L});     // [B, 1, L, L]
  // The most negative finite value (not -inf): a row with no allowed key averages uniformly.
  const double lowest = scores.scalar_type() == torch::kFloat32 ? -3.0e38 : -6.0e4;
  scores = scores.masked_fill(allowed.logical_not(), lowest);
  const auto attn = attn_drop_->forward(torch::softmax(scores, -1));
  const auto y = torch::matmul(attn, v).transpose(1, 2).reshape({B, L, D});
  return resid_drop_->forward(proj_->forward(y));
}

TransformerBlockImpl::TransformerBlockImpl(const TransformerOptions& o) {
  ln1_ = register_module("ln1", torch::nn::LayerNorm(torch::nn::LayerNormOptions({o.width})));
  attn_ = register_module("attn", CausalSelfAttention(o.width, o.heads, o.dropout));
  ln2_ = register_module("ln2", torch::nn::LayerNorm(torch::nn::LayerNormOptions({o.width})));
  torch::nn::Sequential mlp;
  mlp->push_back(torch::nn::Linear(o.width, o.mlp_ratio * o.width));
  mlp->push_back(make_activation(o.activation));
  mlp->push_back(torch::nn::Linear(o.mlp_ratio * o.width, o.width));
  mlp->push_back(torch::nn::Dropout(o.dropout));
  mlp_ = register_module("mlp", mlp);
}

torch::Tensor TransformerBlockImpl::forward(const torch::Tensor& x, const torch::Tensor& valid) {
  auto h = x + attn_->forward(ln1_->forward(x), valid);
  return h + mlp_->forward(ln2_->forward(h));
}

TransformerImpl::TransformerImpl(const TransformerOptions& o) : width_(o.width) {
  if (o.layers < 1) throw UserError(fmt::format("transformer: layers must be >= 1, got {}", o.layers));
  if (o.mlp_ratio < 1) throw UserError(fmt::format("transformer: mlp_ratio must be >= 1, got {}", o.mlp_ratio));
  if (o.dropout < 0 || o.dropout >= 1)
    throw UserError(fmt::format("transformer: dropout must be in [0, 1), got {}", o.dropout));
  blocks_ = register_module("blocks", torch::nn::ModuleList());
  for (std::int64_t i = 0; i < o.layers; ++i) blocks_->push_back(TransformerBlock(o));
  ln_f_ = register_module("ln_f", torch::nn::LayerNorm(torch::nn::LayerNormOptions({o.width})));
}

torch::Tensor TransformerImpl::forward(torch::Tensor x, const torch::Tensor& valid) {
  for (const auto& block : *blocks_) x = block->as<TransformerBlock>()->forward(x, valid);
  return ln_f_->forward(x);
}

void gpt2_init(torch::nn::Module& module, double std) {
  torch::NoGradGuard no_grad;
  for (auto& m : module.modules(/*include_self=*/false)) {  // the top module may live on the stack
    if (auto* linear = m->as<torch::nn::Linear>()) {
      linear->weight.normal_(0.0, std);
      if (linear->bias.defined()) linear->bias.zero_();
    } else if (auto* embedding = m->as<torch::nn::Embedding>()) {
      embedding->weight.normal_(0.0, std);
    } else if (auto* ln = m->as<torch::nn::LayerNorm>()) {
      if (ln->weight.defined()) ln->weight.fill_(1.0);
      if (ln->bias.defined()) ln->bias.zero_();
    }
  }
}

}  // namespace rlzoo
