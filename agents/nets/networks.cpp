#include "agents/nets/networks.h"

#include <cmath>
#include <fmt/format.h>

#include "agents/nets/observation.h"

namespace rlzoo {

namespace {
void check_observation_field(const Space& s, const std::string& where) {
  switch (s.kind()) {
    case SpaceKind::Box:
    case SpaceKind::Discrete:
    case SpaceKind::MultiDiscrete:
    case SpaceKind::MultiBinary: return;
    case SpaceKind::Dict:
      throw UserError(fmt::format("unsupported observation space {}{}: nested Dict", s.describe(), where));
  }
}
}  // namespace

// ---- observation encoder ----------------------------------------------------------------

ObservationEncoderImpl::ObservationEncoderImpl(const Space& space, const PolicyConfig& config) {
  if (space.kind() == SpaceKind::Dict) {
    for (const auto& f : space.fields()) {
      check_observation_field(*f.space, " in field '" + f.name + "'");
      fields_.push_back(*f.space);
    }
  } else {
    fields_.push_back(space);
  }
  for (std::size_t i = 0; i < fields_.size(); ++i) {
    const Space& s = fields_[i];
    if (is_image_space(s)) {
      // (H, W, C) when the last dimension looks like channels, else (C, H, W).
      const bool channels_last = s.shape()[2] <= 4;
      cnns_.push_back(register_module("cnn" + std::to_string(i), NatureCnn(s.shape(), channels_last, config.cnn_features)));
      out_features_ += config.cnn_features;
    } else {
      cnns_.push_back(nullptr);
      switch (s.kind()) {
        case SpaceKind::Discrete: out_features_ += s.n(); break;
        case SpaceKind::MultiDiscrete:
          for (auto n : s.nvec()) out_features_ += n;
          break;
        default: out_features_ += s.numel();
      }
    }
  }
}

torch::Tensor ObservationEncoderImpl::encode(std::size_t i, const torch::Tensor& x) {
  const Space& s = fields_[i];
  if (cnns_[i]) return cnns_[i]->forward(x);
  switch (s.kind()) {
    case SpaceKind::Discrete:
      return torch::one_hot(x.to(torch::kInt64) - s.start(), s.n()).to(torch::kFloat32);
    case SpaceKind::MultiDiscrete: {
      std::vector<torch::Tensor> parts;
      for (std::size_t k = 0; k < s.nvec().size(); ++k)
        parts.push_back(torch::one_hot(x.select(1, static_cast<std::int64_t>(k)).to(torch::kInt64), s.nvec()[k]));
      return torch::cat(parts, 1).to(torch::kFloat32);
    }
    default: return x.reshape({x.size(0), -1}).to(torch::kFloat32);
  }
}

torch::Tensor ObservationEncoderImpl::forward(const std::vector<torch::Tensor>& fields) {
  RLZOO_CHECK(fields.size() == fields_.size());
  if (fields.size() == 1) return encode(0, fields[0]);
  std::vector<torch::Tensor> parts;
  for (std::size_t i = 0; i < fields.size(); ++i) parts.push_back(encode(i, fields[i]));
  return torch::cat(parts, 1);
}

// ---- action distribution ------------------------------------------------------------------

torch::Tensor ActionDistribution::sample() const {
  return std::visit([](const auto& d) { return d.sample(); }, d_);
}
torch::Tensor ActionDistribution::mode() const {
  return std::visit([](const auto& d) { return d.mode(); }, d_);
}
torch::Tensor ActionDistribution::log_prob(const torch::Tensor& a) const {
  return std::visit([&](const auto& d) { return d.log_prob(a); }, d_);
}
torch::Tensor ActionDistribution::entropy() const {
  return std::visit([](const auto& d) { return d.entropy(); }, d_);
}

// ---- actor-critic ------------------------------------------------------------------------

ActorCriticImpl::ActorCriticImpl(const Space& obs_space, const Space& action_space, const PolicyConfig& config)
    : shared_(config.shared_trunk) {
  std::int64_t n_out = 0;
  if (action_space.is_discrete()) {
    continuous_ = false;
    n_out = action_space.n();
  } else if (action_space.is_box() && dtype_is_floating(action_space.dtype())) {
    continuous_ = true;
    n_out = action_space.numel();
  } else {
    throw UserError(fmt::format("unsupported action space {} for an actor-critic policy (supported: Discrete, "
                                "float Box)", action_space.describe()));
  }
  encoder_ = register_module("encoder", ObservationEncoder(obs_space, config));
  pi_trunk_ = register_module("pi_trunk", Mlp(encoder_->out_features(), config.hidden, config.activation));
  if (!shared_) vf_trunk_ = register_module("vf_trunk", Mlp(encoder_->out_features(), config.hidden, config.activation));
  pi_head_ = register_module("pi_head", torch::nn::Linear(pi_trunk_->out_features(), n_out));
  vf_head_ = register_module("vf_head", torch::nn::Linear(pi_trunk_->out_features(), 1));
  if (continuous_) log_std_ = register_parameter("log_std", torch::full({n_out}, config.log_std_init));
  if (config.ortho_init) {
    orthogonal_init(*encoder_, std::sqrt(2.0));
    orthogonal_init(*pi_trunk_, std::sqrt(2.0));
    if (!shared_) orthogonal_init(*vf_trunk_, std::sqrt(2.0));
    orthogonal_init(*pi_head_, 0.01);
    orthogonal_init(*vf_head_, 1.0);
  }
}

ActionDistribution ActorCriticImpl::distribution(const torch::Tensor& features, const torch::Tensor& mask) {
  const auto out = pi_head_->forward(features);
  if (continuous_) return ActionDistribution(DiagGaussian(out, log_std_));
  return ActionDistribution(Categorical(out, mask));
}

std::pair<ActionDistribution, torch::Tensor> ActorCriticImpl::forward(const std::vector<torch::Tensor>& obs,
                                                                      const torch::Tensor& mask) {
  const auto x = encoder_->forward(obs);
  const auto pi = pi_trunk_->forward(x);
  const auto vf = shared_ ? pi : vf_trunk_->forward(x);
  return {distribution(pi, mask), vf_head_->forward(vf).squeeze(-1)};
}

torch::Tensor ActorCriticImpl::value(const std::vector<torch::Tensor>& obs) {
  const auto x = encoder_->forward(obs);
  return vf_head_->forward(shared_ ? pi_trunk_->forward(x) : vf_trunk_->forward(x)).squeeze(-1);
}

// ---- Q network -----------------------------------------------------------------------------

void require_discrete_actions(const Space& action_space, const std::string& algorithm, const std::string& env_id) {
  if (!action_space.is_discrete())
    throw UserError(fmt::format("{} needs a Discrete action space, but {} has {}", algorithm, env_id,
                                action_space.describe()));
}

QNetworkImpl::QNetworkImpl(const Space& obs_space, const Space& action_space, const PolicyConfig& config)
    : dueling_(config.dueling) {
  require_discrete_actions(action_space, "a Q network", "the env");
  encoder_ = register_module("encoder", ObservationEncoder(obs_space, config));
  trunk_ = register_module("trunk", Mlp(encoder_->out_features(), config.hidden, config.activation));
  q_head_ = register_module("q_head", torch::nn::Linear(trunk_->out_features(), action_space.n()));
  if (dueling_) v_head_ = register_module("v_head", torch::nn::Linear(trunk_->out_features(), 1));
}

torch::Tensor QNetworkImpl::forward(const std::vector<torch::Tensor>& obs) {
  const auto h = trunk_->forward(encoder_->forward(obs));
  const auto a = q_head_->forward(h);
  if (!dueling_) return a;
  return v_head_->forward(h) + a - a.mean(-1, true);
}

}  // namespace rlzoo
