#include "rl/nets/networks.h"

#include <cmath>
#include <fmt/format.h>

#include "rl/nets/observation.h"

namespace rlzoo {

std::optional<FusedMlp> fused_chain(const Mlp& trunk, const torch::nn::Linear& head) {
  if (!fused_mlp_activation(trunk->activation())) return std::nullopt;
  std::vector<torch::nn::Linear> layers = trunk->linears();
  if (!head.is_empty()) layers.push_back(head);
  if (layers.empty()) return std::nullopt;
  return FusedMlp(std::move(layers), trunk->activation(), /*linear_output=*/!head.is_empty());
}

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

bool ObservationEncoderImpl::passes_float_rows() const {
  return fields_.size() == 1 && !cnns_[0] && fields_[0].kind() == SpaceKind::Box &&
         fields_[0].dtype() == DType::Float32;
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
  std::int64_t features = encoder_->out_features();
  if (config.recurrent.enabled()) {
    const RecurrentConfig& r = config.recurrent;
    rnn_ = register_module("rnn", RecurrentEncoder(r.cell, features, r.hidden, r.layers));
    if (!r.shared) critic_rnn_ = register_module("critic_rnn", RecurrentEncoder(r.cell, features, r.hidden, r.layers));
    rnn_state_rows_ = rnn_->initial_state(1).size(0);
    features = r.hidden;
  }
  pi_trunk_ = register_module("pi_trunk", Mlp(features, config.hidden, config.activation));
  if (!shared_) vf_trunk_ = register_module("vf_trunk", Mlp(features, config.hidden, config.activation));
  pi_head_ = register_module("pi_head", torch::nn::Linear(pi_trunk_->out_features(), n_out));
  vf_head_ = register_module("vf_head", torch::nn::Linear(pi_trunk_->out_features(), 1));
  if (continuous_) log_std_ = register_parameter("log_std", torch::full({n_out}, config.log_std_init));
  if (config.ortho_init) {  // the RNNs initialise themselves (orthogonal weights, zero biases)
    orthogonal_init(*encoder_, std::sqrt(2.0));
    orthogonal_init(*pi_trunk_, std::sqrt(2.0));
    if (!shared_) orthogonal_init(*vf_trunk_, std::sqrt(2.0));
    orthogonal_init(*pi_head_, 0.01);
    orthogonal_init(*vf_head_, 1.0);
  }
  if (!shared_) {
    fused_pi_ = fused_chain(pi_trunk_, pi_head_);
    fused_vf_ = fused_chain(vf_trunk_, vf_head_);
    if (!fused_pi_ || !fused_vf_) fused_pi_.reset(), fused_vf_.reset();
  }
}

ActionDistribution ActorCriticImpl::distribution(const torch::Tensor& head_out, const torch::Tensor& mask) {
  if (continuous_) return ActionDistribution(DiagGaussian(head_out, log_std_));
  return ActionDistribution(Categorical(head_out, mask));
}

std::pair<ActionDistribution, torch::Tensor> ActorCriticImpl::heads(const torch::Tensor& pi_in,
                                                                    const torch::Tensor& vf_in,
                                                                    const torch::Tensor& mask) {
  if (fused_path() && fused_pi_->applies_to(pi_in) && fused_vf_->applies_to(vf_in))
    return {distribution(fused_pi_->forward(pi_in), mask), fused_vf_->forward(vf_in).squeeze(-1)};
  const auto pi = pi_trunk_->forward(pi_in);
  torch::Tensor vf;
  if (!shared_)
    vf = vf_trunk_->forward(vf_in);
  else
    vf = vf_in.is_same(pi_in) ? pi : pi_trunk_->forward(vf_in);
  return {distribution(pi_head_->forward(pi), mask), vf_head_->forward(vf).squeeze(-1)};
}

std::pair<ActionDistribution, torch::Tensor> ActorCriticImpl::forward(const std::vector<torch::Tensor>& obs,
                                                                      const torch::Tensor& mask) {
  if (recurrent()) throw UserError("a recurrent actor-critic acts through forward_sequence (it needs its state)");
  const auto x = encoder_->forward(obs);
  return heads(x, x, mask);
}

bool ActorCriticImpl::plain_heads(const float* obs, std::int64_t rows, float* head_out, float* values,
                                  std::vector<float>& scratch) const {
  const auto [pi, vf] = plain_chains();
  return pi && pi->forward_rows(obs, rows, head_out, scratch) && vf->forward_rows(obs, rows, values, scratch);
}

std::pair<const FusedMlp*, const FusedMlp*> ActorCriticImpl::plain_chains() const {
  if (recurrent() || !fused_path() || !encoder_->passes_float_rows()) return {nullptr, nullptr};
  return {&*fused_pi_, &*fused_vf_};
}

torch::Tensor ActorCriticImpl::value(const std::vector<torch::Tensor>& obs) {
  if (recurrent()) throw UserError("a recurrent actor-critic acts through forward_sequence (it needs its state)");
  const auto x = encoder_->forward(obs);
  if (fused_path() && fused_vf_->applies_to(x)) return fused_vf_->forward(x).squeeze(-1);
  return vf_head_->forward(shared_ ? pi_trunk_->forward(x) : vf_trunk_->forward(x)).squeeze(-1);
}

torch::Tensor ActorCriticImpl::initial_state(std::int64_t batch) const {
  RLZOO_CHECK(recurrent(), "initial_state of a feed-forward actor-critic");
  const auto s = rnn_->initial_state(batch);
  return critic_rnn_.is_empty() ? s : torch::cat({s, critic_rnn_->initial_state(batch)});
}

ActorCriticImpl::SequenceOutput ActorCriticImpl::forward_sequence(const std::vector<torch::Tensor>& obs,
                                                                  const torch::Tensor& state,
                                                                  const torch::Tensor& episode_start,
                                                                  const torch::Tensor& mask) {
  RLZOO_CHECK(recurrent(), "forward_sequence of a feed-forward actor-critic");
  RLZOO_CHECK(episode_start.dim() == 2, "episode_start must be [T, B]");
  const std::int64_t steps = episode_start.size(0), batch = episode_start.size(1);
  const auto x = encoder_->forward(obs);
  RLZOO_CHECK(x.size(0) == steps * batch, fmt::format("{} observation rows for T = {} steps of B = {} sequences",
                                                      x.size(0), steps, batch));
  const auto seq = x.view({steps, batch, x.size(1)});
  auto [pi_out, pi_state] = rnn_->forward(seq, state.narrow(0, 0, rnn_state_rows_), episode_start);
  const auto pi_in = pi_out.reshape({steps * batch, -1});
  if (critic_rnn_.is_empty()) {
    auto [dist, values] = heads(pi_in, pi_in, mask);
    return {std::move(dist), values, pi_state};
  }
  auto [vf_out, vf_state] = critic_rnn_->forward(seq, state.narrow(0, rnn_state_rows_, rnn_state_rows_), episode_start);
  auto [dist, values] = heads(pi_in, vf_out.reshape({steps * batch, -1}), mask);
  return {std::move(dist), values, torch::cat({pi_state, vf_state})};
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
  if (config.recurrent.enabled())
    throw UserError(
        fmt::format("a Q network has no recurrent core (policy.recurrent.cell is '{}')", config.recurrent.cell));
  encoder_ = register_module("encoder", ObservationEncoder(obs_space, config));
  trunk_ = register_module("trunk", Mlp(encoder_->out_features(), config.hidden, config.activation));
  q_head_ = register_module("q_head", torch::nn::Linear(trunk_->out_features(), action_space.n()));
  if (dueling_) v_head_ = register_module("v_head", torch::nn::Linear(trunk_->out_features(), 1));
  fused_ = fused_chain(trunk_, dueling_ ? torch::nn::Linear(nullptr) : q_head_);
}

torch::Tensor QNetworkImpl::forward(const std::vector<torch::Tensor>& obs) {
  const auto x = encoder_->forward(obs);
  const bool fused = fused_path() && fused_->applies_to(x);
  if (fused && !dueling_) return fused_->forward(x);
  const auto h = fused ? fused_->forward(x) : trunk_->forward(x);
  const auto a = q_head_->forward(h);
  if (!dueling_) return a;
  return v_head_->forward(h) + a - a.mean(-1, true);
}

}  // namespace rlzoo
