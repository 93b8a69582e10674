#include "algorithms/dt/decision_transformer.h"

#include "rl/nets/layers.h"

namespace rlzoo::dt {

DecisionTransformerImpl::DecisionTransformerImpl(const SequenceModelOptions& o) : o_(o) {
  const auto D = o.transformer.width;
  embed_timestep_ = register_module("embed_timestep", torch::nn::Embedding(o.max_ep_len, D));
  embed_return_ = register_module("embed_return", torch::nn::Linear(1, D));
  embed_state_ = register_module("embed_state", torch::nn::Linear(o.state_dim, D));
  if (o.discrete) embed_discrete_action_ = register_module("embed_action", torch::nn::Embedding(o.action_dim, D));
  else embed_action_ = register_module("embed_action", torch::nn::Linear(o.action_dim, D));
  embed_ln_ = register_module("embed_ln", torch::nn::LayerNorm(torch::nn::LayerNormOptions({D})));
  embed_drop_ = register_module("embed_drop", torch::nn::Dropout(o.transformer.dropout));
  transformer_ = register_module("transformer", Transformer(o.transformer));
  predict_action_ = register_module("predict_action", torch::nn::Linear(D, o.action_dim));
  gpt2_init(*this);
}

torch::Tensor DecisionTransformerImpl::forward(const torch::Tensor& states, const torch::Tensor& actions,
                                               const torch::Tensor& rtg, const torch::Tensor& timesteps,
                                               const torch::Tensor& valid) {
  const auto B = states.size(0), K = states.size(1), D = o_.transformer.width;
  const auto time = embed_timestep_->forward(timesteps.clamp(0, o_.max_ep_len - 1));
  const auto r = embed_return_->forward(rtg.unsqueeze(-1)) + time;
  const auto s = embed_state_->forward(states) + time;
  // Padded discrete actions may hold anything: clamp them into range (their tokens are masked).
  const auto a = (o_.discrete ? embed_discrete_action_->forward(actions.clamp(0, o_.action_dim - 1))
                              : embed_action_->forward(actions)) +
                 time;
  // (R̂_1, s_1, a_1, R̂_2, ...): [B, K, 3, D] -> [B, 3K, D]
  auto tokens = torch::stack({r, s, a}, 2).reshape({B, 3 * K, D});
  tokens = embed_drop_->forward(embed_ln_->forward(tokens));
  const auto mask = valid.to(torch::kBool).unsqueeze(2).expand({B, K, 3}).reshape({B, 3 * K});
  const auto h = transformer_->forward(tokens, mask).reshape({B, K, 3, D});
  auto out = predict_action_->forward(h.select(2, 1));  // from the state tokens
  return o_.discrete ? out : torch::tanh(out);
}

BcMlpImpl::BcMlpImpl(const SequenceModelOptions& o, std::int64_t context, const std::vector<std::int64_t>& hidden,
                     const std::string& activation, double dropout)
    : o_(o), context_(context) {
  torch::nn::Sequential mlp;
  std::int64_t in = context * o.state_dim;
  for (auto h : hidden) {
    mlp->push_back(torch::nn::Linear(in, h));
    mlp->push_back(make_activation(activation));
    mlp->push_back(torch::nn::Dropout(dropout));
    in = h;
  }
  mlp->push_back(torch::nn::Linear(in, o.action_dim));
  mlp_ = register_module("mlp", mlp);
}

torch::Tensor BcMlpImpl::forward(const torch::Tensor& states, const torch::Tensor& valid) {
  const auto B = states.size(0), K = states.size(1);
  // The last `context` states, padded rows zeroed (one pad value everywhere).
  auto x = states.slice(1, std::max<std::int64_t>(0, K - context_));
  x = x * valid.slice(1, std::max<std::int64_t>(0, K - context_)).unsqueeze(-1).to(x.scalar_type());
  if (x.size(1) < context_)
    x = torch::cat({torch::zeros({B, context_ - x.size(1), o_.state_dim}, x.options()), x}, 1);
  auto out = mlp_->forward(x.reshape({B, context_ * o_.state_dim}));
  if (!o_.discrete) out = torch::tanh(out);
  // Only the last position is predicted; the others repeat it so shapes match the DT's.
  return out.unsqueeze(1).expand({B, K, o_.action_dim});
}

torch::Tensor action_loss(const torch::Tensor& predicted, const torch::Tensor& target, const torch::Tensor& valid,
                          bool discrete) {
  const auto w = valid.to(predicted.scalar_type());
  const auto n = w.sum().clamp_min(1.0);
  if (discrete) {
    const auto A = predicted.size(-1);
    const auto ce = torch::nn::functional::cross_entropy(
        predicted.reshape({-1, A}), target.reshape({-1}).clamp(0, A - 1),
        torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kNone));
    return (ce * w.reshape({-1})).sum() / n;
  }
  return ((predicted - target).pow(2).mean(-1) * w).sum() / n;
}

}  // namespace rlzoo::dt
