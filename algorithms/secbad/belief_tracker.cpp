#include "algorithms/secbad/belief_tracker.h"

#include <cmath>
#include <numbers>

#include "core/common/error.h"

namespace rlzoo::secbad {

Segmentation parse_segmentation(const std::string& name) {
  if (name == "none") return Segmentation::none;
  if (name == "oracle") return Segmentation::oracle;
  if (name == "inferred") return Segmentation::inferred;
  throw UserError("segmentation: expected none, oracle or inferred, got '" + name + "'");
}

BeliefTracker::BeliefTracker(BeliefEncoder encoder, RewardDecoder decoder, const SecbadConfig& cfg, SegmentPrior prior,
                             std::int64_t n_envs, Segmentation mode)
    : encoder_(std::move(encoder)),
      decoder_(std::move(decoder)),
      mode_(mode),
      mixture_(cfg.belief == "mixture"),
      predictive_(cfg.likelihood == "predictive"),
      lik_std_(cfg.likelihood_std) {
  for (std::int64_t i = 0; i < n_envs; ++i)
    envs_.push_back({torch::Tensor(), CandidateEncoder(encoder_->gru()),
                     SegmentPosterior(prior, cfg.prune_below, cfg.max_hypotheses)});
  beliefs_.resize(static_cast<std::size_t>(n_envs));
  reset_all();
}

torch::Tensor BeliefTracker::beliefs() const { return torch::stack(beliefs_); }

void BeliefTracker::reset_all() {
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(envs_.size()); ++i) reset(i);
}

void BeliefTracker::reset(std::int64_t i) {
  torch::NoGradGuard no_grad;
  auto& e = envs_[static_cast<std::size_t>(i)];
  e.candidates.reset();
  e.posterior.reset();
  reset_segment(i);
}

torch::Tensor BeliefTracker::belief_of(const torch::Tensor& hidden, std::span<const double> log_weights) {
  auto [mu, logvar] = encoder_->latent(hidden);  // [K, D]
  if (!mixture_) {  // the most likely length's latent
    std::size_t best = 0;
    for (std::size_t k = 1; k < log_weights.size(); ++k)
      if (log_weights[k] > log_weights[best]) best = k;
    return torch::cat({mu[static_cast<std::int64_t>(best)], logvar[static_cast<std::int64_t>(best)]});
  }
  // The mixture's mean and variance (moment matching).
  const auto w = torch::tensor(std::vector<double>(log_weights.begin(), log_weights.end()), torch::kFloat64)
                     .exp()
                     .to(torch::kFloat32)
                     .unsqueeze(1);
  const auto m = (w * mu).sum(0);
  const auto var = (w * (logvar.exp() + mu.pow(2))).sum(0) - m.pow(2);
  return torch::cat({m, var.clamp_min(1e-8).log()});
}

std::vector<double> BeliefTracker::log_likelihoods(const torch::Tensor& hidden, const torch::Tensor& prev_action,
                                                   const torch::Tensor& prev_state, const torch::Tensor& state,
                                                   double reward) {
  const auto k = hidden.size(0);
  auto [mu, logvar] = encoder_->latent(hidden);
  const auto pred = decoder_->forward(encoder_, mu, state.unsqueeze(0).expand({k, -1}),
                                      prev_action.unsqueeze(0).expand({k, -1}), prev_state.unsqueeze(0).expand({k, -1}));
  const auto err = (pred.to(torch::kFloat64) - reward) / lik_std_;
  const auto ll = -0.5 * err.pow(2) - std::log(lik_std_ * std::sqrt(2 * std::numbers::pi));
  return {ll.data_ptr<double>(), ll.data_ptr<double>() + k};
}

void BeliefTracker::observe(std::int64_t i, const torch::Tensor& prev_action, const torch::Tensor& prev_state,
                            const torch::Tensor& state, double reward, bool next_segment) {
  torch::NoGradGuard no_grad;
  auto& e = envs_[static_cast<std::size_t>(i)];
  auto& belief = beliefs_[static_cast<std::size_t>(i)];
  const auto x = encoder_->input(prev_action.unsqueeze(0), state.unsqueeze(0), torch::tensor({reward}).to(torch::kFloat32));
  if (mode_ != Segmentation::inferred) {
    e.hidden = encoder_->step(x, e.hidden);
    if (mode_ == Segmentation::oracle && next_segment) return reset_segment(i);
    auto [mu, logvar] = encoder_->latent(e.hidden);
    belief = torch::cat({mu, logvar}, -1).squeeze(0);
    return;
  }
  const auto zero = encoder_->zero_hidden(1);
  const double ll_new = log_likelihoods(zero, prev_action, prev_state, state, reward)[0];
  std::vector<double> ll_continue;
  const auto live = static_cast<std::int64_t>(e.posterior.size());
  if (e.candidates.size() == 0) {  // the episode's first step: the one hypothesis is the prior
    ll_continue.assign(static_cast<std::size_t>(live), ll_new);
    e.posterior.update(ll_continue, ll_new);
    e.candidates.step(x);
  } else if (predictive_) {  // q(c | the candidate's steps before t) scores step t
    ll_continue = log_likelihoods(e.candidates.hidden(), prev_action, prev_state, state, reward);
    e.posterior.update(ll_continue, ll_new);
    e.candidates.step(x);
  } else {  // the released code: candidates absorb step t before scoring it
    e.candidates.step(x);
    ll_continue = log_likelihoods(e.candidates.hidden().slice(0, 1), prev_action, prev_state, state, reward);
    e.posterior.update(ll_continue, ll_new);
  }
  e.candidates.keep(e.posterior.lengths());
  belief = belief_of(e.candidates.hidden(), e.posterior.log_probs());
}

void BeliefTracker::observe_all(const torch::Tensor& prev_actions, const torch::Tensor& prev_states,
                                const torch::Tensor& states, std::span<const double> rewards,
                                std::span<const std::uint8_t> next_segment, std::span<const std::uint8_t> reset) {
  const auto n = static_cast<std::int64_t>(envs_.size());
  if (mode_ == Segmentation::inferred) {
    for (std::int64_t i = 0; i < n; ++i) {
      const auto k = static_cast<std::size_t>(i);
      if (reset[k]) this->reset(i);
      else observe(i, prev_actions[i], prev_states[i], states[i], rewards[k], next_segment[k] != 0);
    }
    return;
  }
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> h;
  for (auto& e : envs_) h.push_back(e.hidden);
  const auto r = torch::tensor(std::vector<double>(rewards.begin(), rewards.end())).to(torch::kFloat32);
  auto hidden = encoder_->step(encoder_->input(prev_actions, states, r), torch::cat(h, 0));
  std::vector<float> keep(static_cast<std::size_t>(n));
  for (std::size_t k = 0; k < keep.size(); ++k)
    keep[k] = reset[k] || (mode_ == Segmentation::oracle && next_segment[k]) ? 0.0f : 1.0f;
  hidden = hidden * torch::tensor(keep).unsqueeze(1);  // a zero state is the prior's
  auto [mu, logvar] = encoder_->latent(hidden);
  const auto b = torch::cat({mu, logvar}, -1);
  for (std::int64_t i = 0; i < n; ++i) {
    envs_[static_cast<std::size_t>(i)].hidden = hidden.slice(0, i, i + 1);
    beliefs_[static_cast<std::size_t>(i)] = b[i];
  }
}

void BeliefTracker::reset_segment(std::int64_t i) {
  auto& e = envs_[static_cast<std::size_t>(i)];
  e.hidden = encoder_->zero_hidden(1);
  auto [mu, logvar] = encoder_->latent(e.hidden);
  beliefs_[static_cast<std::size_t>(i)] = torch::cat({mu, logvar}, -1).squeeze(0);
}

std::int64_t BeliefTracker::map_length(std::int64_t i) const {
  const auto& e = envs_[static_cast<std::size_t>(i)];
  return mode_ == Segmentation::inferred ? e.posterior.map_length() : 0;
}

std::int64_t BeliefTracker::hypotheses(std::int64_t i) const {
  return mode_ == Segmentation::inferred ? static_cast<std::int64_t>(envs_[static_cast<std::size_t>(i)].posterior.size())
                                         : 0;
}

namespace {

torch::Tensor int64s(std::span<const std::int64_t> v) {
  return torch::tensor(std::vector<std::int64_t>(v.begin(), v.end()), torch::kInt64);
}
std::vector<std::int64_t> int64s(const torch::Tensor& t) {
  const auto c = t.to(torch::kInt64).contiguous();
  return {c.data_ptr<std::int64_t>(), c.data_ptr<std::int64_t>() + c.numel()};
}

}  // namespace

TensorMap BeliefTracker::state() const {
  TensorMap out;
  for (std::size_t i = 0; i < envs_.size(); ++i) {
    const std::string env = "env" + std::to_string(i) + ".";
    const EnvState& e = envs_[i];
    if (e.hidden.defined()) out[env + "hidden"] = e.hidden;
    out[env + "candidates.hidden"] = e.candidates.hidden();
    out[env + "candidates.lengths"] = int64s(e.candidates.lengths());
    out[env + "posterior.lengths"] = int64s(e.posterior.lengths());
    const auto lp = e.posterior.log_probs();
    out[env + "posterior.log_probs"] = torch::tensor(std::vector<double>(lp.begin(), lp.end()), torch::kFloat64);
    out[env + "belief"] = beliefs_[i];
  }
  return out;
}

void BeliefTracker::load_state(const TensorMap& state) {
  auto at = [&](const std::string& name) {
    const auto it = state.find(name);
    if (it == state.end()) throw UserError("belief tracker state: no tensor '" + name + "'");
    return it->second;
  };
  for (std::size_t i = 0; i < envs_.size(); ++i) {
    const std::string env = "env" + std::to_string(i) + ".";
    EnvState& e = envs_[i];
    if (state.count(env + "hidden")) e.hidden = at(env + "hidden");
    e.candidates.restore(at(env + "candidates.hidden"), int64s(at(env + "candidates.lengths")));
    const auto lp = at(env + "posterior.log_probs").to(torch::kFloat64).contiguous();
    e.posterior.restore(int64s(at(env + "posterior.lengths")),
                        {lp.data_ptr<double>(), lp.data_ptr<double>() + lp.numel()});
    beliefs_[i] = at(env + "belief");
  }
}

}  // namespace rlzoo::secbad
