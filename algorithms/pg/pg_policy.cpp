#include "algorithms/pg/pg_policy.h"

#include "rl/nets/distributions.h"
#include "core/common/error.h"

namespace rlzoo::pg {

PgPolicyImpl::PgPolicyImpl(const Space& obs, const Space& act, const PolicyConfig& config, bool fixed_std)
    : continuous_(act.is_box()) {
  if (!obs.is_box() || obs.shape().size() != 1)
    throw UserError("the policy-gradient family needs a flat Box observation space, not " + obs.describe());
  if (!act.is_box() && !act.is_discrete())
    throw UserError("the policy-gradient family needs a Discrete or Box action space, not " + act.describe());
  trunk_ = register_module("trunk", Mlp(obs.numel(), config.hidden, config.activation));
  head_ = register_module("head", torch::nn::Linear(trunk_->out_features(), continuous_ ? act.numel() : act.n()));
  if (config.ortho_init) {
    orthogonal_init(*trunk_, std::sqrt(2.0));
    orthogonal_init(*head_, 0.01);
  }
  if (continuous_) {
    auto log_std = torch::full({act.numel()}, config.log_std_init, torch::kFloat32);
    log_std_ = fixed_std ? register_buffer("log_std", log_std) : register_parameter("log_std", log_std);
  }
}

torch::Tensor PgPolicyImpl::log_prob(const torch::Tensor& obs, const torch::Tensor& actions) {
  const auto out = head_->forward(trunk_->forward(obs));
  if (continuous_) return DiagGaussian(out, log_std_.expand_as(out)).log_prob(actions);
  return Categorical(out).log_prob(actions);
}

torch::Tensor PgPolicyImpl::act(const torch::Tensor& obs, bool deterministic) {
  const auto out = head_->forward(trunk_->forward(obs));
  if (continuous_) {
    DiagGaussian d(out, log_std_.expand_as(out));
    return deterministic ? d.mode() : d.sample();
  }
  Categorical d(out);
  return deterministic ? d.mode() : d.sample();
}

torch::Tensor flat_parameters(torch::nn::Module& m) {
  std::vector<torch::Tensor> parts;
  for (const auto& p : m.parameters()) parts.push_back(p.detach().flatten().to(torch::kFloat64));
  return torch::cat(parts);
}

void set_flat_parameters(torch::nn::Module& m, const torch::Tensor& flat) {
  torch::NoGradGuard no_grad;
  std::int64_t offset = 0;
  for (auto& p : m.parameters()) {
    p.copy_(flat.narrow(0, offset, p.numel()).view(p.sizes()).to(p.dtype()));
    offset += p.numel();
  }
  RLZOO_CHECK(offset == flat.numel(), "flat parameter vector of the wrong size");
}

}  // namespace rlzoo::pg
