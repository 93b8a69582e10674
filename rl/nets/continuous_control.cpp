#include "rl/nets/continuous_control.h"

#include <fmt/format.h>

#include "core/common/error.h"

namespace rlzoo {

namespace {

// Runs `trunk` then `head` as the fused chain where it applies, else as the modules.
torch::Tensor run_chain(const std::optional<FusedMlp>& fused, Mlp& trunk, torch::nn::Linear& head,
                        const torch::Tensor& x) {
  if (fused && fused->applies_to(x)) return fused->forward(x);
  return head->forward(trunk->forward(x));
}

void check_action_dim(std::int64_t d) {
  if (d < 1) throw UserError(fmt::format("a continuous-control network needs at least one action dimension, got {}", d));
}

}  // namespace

SquashedGaussianActorImpl::SquashedGaussianActorImpl(const Space& obs_space, std::int64_t action_dim,
                                                     const PolicyConfig& config, bool sde)
    : action_dim_(action_dim) {
  check_action_dim(action_dim);
  encoder_ = register_module("encoder", ObservationEncoder(obs_space, config));
  trunk_ = register_module("trunk", Mlp(encoder_->out_features(), config.hidden, config.activation));
  head_ = register_module("head", torch::nn::Linear(trunk_->out_features(), (sde ? 1 : 2) * action_dim));
  if (sde)  // the noise needs the trunk's output: no fused chain
    log_std_ = register_parameter("log_std", torch::full({trunk_->out_features(), action_dim}, config.log_std_init));
  else
    fused_ = fused_chain(trunk_, head_);
}

std::pair<torch::Tensor, torch::Tensor> SquashedGaussianActorImpl::forward(const std::vector<torch::Tensor>& obs) {
  RLZOO_CHECK(!sde(), "SquashedGaussianActor::forward on a gSDE actor: use forward_sde");
  const auto out = run_chain(fused_, trunk_, head_, encoder_->forward(obs));
  return {out.narrow(1, 0, action_dim_), out.narrow(1, action_dim_, action_dim_).clamp(kLogStdMin, kLogStdMax)};
}

std::pair<torch::Tensor, torch::Tensor> SquashedGaussianActorImpl::forward_sde(const std::vector<torch::Tensor>& obs) {
  RLZOO_CHECK(sde(), "SquashedGaussianActor::forward_sde on an actor without gSDE");
  auto latent = trunk_->forward(encoder_->forward(obs));
  return {head_->forward(latent).clamp(-kSdeClipMean, kSdeClipMean), std::move(latent)};
}

torch::Tensor SquashedGaussianActorImpl::mean(const std::vector<torch::Tensor>& obs) {
  return sde() ? forward_sde(obs).first : forward(obs).first;
}

DeterministicActorImpl::DeterministicActorImpl(const Space& obs_space, std::int64_t action_dim,
                                               const PolicyConfig& config) {
  check_action_dim(action_dim);
  encoder_ = register_module("encoder", ObservationEncoder(obs_space, config));
  trunk_ = register_module("trunk", Mlp(encoder_->out_features(), config.hidden, config.activation));
  head_ = register_module("head", torch::nn::Linear(trunk_->out_features(), action_dim));
  fused_ = fused_chain(trunk_, head_);
}

torch::Tensor DeterministicActorImpl::forward(const std::vector<torch::Tensor>& obs) {
  return torch::tanh(run_chain(fused_, trunk_, head_, encoder_->forward(obs)));
}

ContinuousCriticImpl::ContinuousCriticImpl(const Space& obs_space, std::int64_t action_dim, const PolicyConfig& config,
                                           int n_critics) {
  check_action_dim(action_dim);
  if (n_critics < 1) throw UserError(fmt::format("n_critics must be >= 1, got {}", n_critics));
  encoder_ = register_module("encoder", ObservationEncoder(obs_space, config));
  const std::int64_t in = encoder_->out_features() + action_dim;
  for (int i = 0; i < n_critics; ++i) {
    trunks_.push_back(register_module(fmt::format("q{}_trunk", i), Mlp(in, config.hidden, config.activation)));
    heads_.push_back(register_module(fmt::format("q{}_head", i), torch::nn::Linear(trunks_.back()->out_features(), 1)));
    fused_.push_back(fused_chain(trunks_.back(), heads_.back()));
  }
}

torch::Tensor ContinuousCriticImpl::q(std::size_t i, const torch::Tensor& input) {
  return run_chain(fused_[i], trunks_[i], heads_[i], input).squeeze(-1);
}

torch::Tensor ContinuousCriticImpl::forward(const std::vector<torch::Tensor>& obs, const torch::Tensor& actions) {
  const auto input = torch::cat({encoder_->forward(obs), actions.to(torch::kFloat32)}, 1);
  std::vector<torch::Tensor> qs;
  for (std::size_t i = 0; i < trunks_.size(); ++i) qs.push_back(q(i, input));
  return torch::stack(qs);
}

torch::Tensor ContinuousCriticImpl::q1(const std::vector<torch::Tensor>& obs, const torch::Tensor& actions) {
  return q(0, torch::cat({encoder_->forward(obs), actions.to(torch::kFloat32)}, 1));
}

}  // namespace rlzoo
