#include "algorithms/secbad/belief_vae.h"

#include <map>

#include "rl/nets/layers.h"
#include "core/common/error.h"

namespace rlzoo::secbad {

BeliefEncoderImpl::BeliefEncoderImpl(std::int64_t state_dim, std::int64_t action_dim, const VaeConfig& cfg)
    : hidden_(cfg.gru_hidden), latent_dim_(cfg.latent_dim) {
  std::int64_t in = 0;
  if (cfg.action_embed > 0) {
    action_embed_ = register_module("action_embed", torch::nn::Linear(action_dim, cfg.action_embed));
    in += cfg.action_embed;
  }
  state_embed_ = register_module("state_embed", torch::nn::Linear(state_dim, cfg.state_embed));
  reward_embed_ = register_module("reward_embed", torch::nn::Linear(1, cfg.reward_embed));
  in += cfg.state_embed + cfg.reward_embed;
  gru_ = register_module("gru", torch::nn::GRUCell(in, cfg.gru_hidden));
  for (auto& p : gru_->named_parameters()) {  // the code's GRU init: orthogonal weights, zero biases
    torch::NoGradGuard no_grad;
    if (p.key().find("weight") != std::string::npos) torch::nn::init::orthogonal_(p.value());
    else p.value().zero_();
  }
  mu_ = register_module("mu", torch::nn::Linear(cfg.gru_hidden, cfg.latent_dim));
  logvar_ = register_module("logvar", torch::nn::Linear(cfg.gru_hidden, cfg.latent_dim));
}

torch::Tensor BeliefEncoderImpl::embed_action(const torch::Tensor& a) {
  return action_embed_ ? torch::relu(action_embed_->forward(a)) : torch::Tensor();
}

torch::Tensor BeliefEncoderImpl::input(const torch::Tensor& prev_action, const torch::Tensor& state,
                                       const torch::Tensor& reward) {
  std::vector<torch::Tensor> parts;
  if (action_embed_) parts.push_back(embed_action(prev_action));
  parts.push_back(embed_state(state));
  parts.push_back(torch::relu(reward_embed_->forward(reward.reshape({-1, 1}))));
  return torch::cat(parts, -1);
}

std::pair<torch::Tensor, torch::Tensor> BeliefEncoderImpl::latent(const torch::Tensor& hidden) {
  return {mu_->forward(hidden), logvar_->forward(hidden)};
}

namespace {

torch::nn::Sequential relu_mlp(std::int64_t in, const std::vector<std::int64_t>& hidden, std::int64_t out) {
  torch::nn::Sequential s;
  for (auto h : hidden) {
    s->push_back(torch::nn::Linear(in, h));
    s->push_back(torch::nn::ReLU());
    in = h;
  }
  s->push_back(torch::nn::Linear(in, out));
  return s;
}

}  // namespace

RewardDecoderImpl::RewardDecoderImpl(const BeliefEncoder& encoder, const std::vector<std::int64_t>& hidden) {
  const std::int64_t in = encoder->latent_dim() + 2 * encoder->state_embed_dim() + encoder->action_embed_dim();
  mlp_ = register_module("mlp", relu_mlp(in, hidden, 1));
}

torch::Tensor RewardDecoderImpl::forward(BeliefEncoder& encoder, const torch::Tensor& z, const torch::Tensor& state,
                                         const torch::Tensor& prev_action, const torch::Tensor& prev_state) {
  std::vector<torch::Tensor> parts{z, encoder->embed_state(state)};
  if (encoder->action_embed_dim() > 0) parts.push_back(encoder->embed_action(prev_action));
  parts.push_back(encoder->embed_state(prev_state));
  return mlp_->forward(torch::cat(parts, -1)).squeeze(-1);
}

torch::nn::Sequential make_task_decoder(std::int64_t latent, const std::vector<std::int64_t>& hidden,
                                        std::int64_t context_dim) {
  return relu_mlp(latent, hidden, context_dim);
}

void EpisodeBuffer::add(Episode e) {
  episodes_.push_back(std::move(e));
  while (static_cast<std::int64_t>(episodes_.size()) > capacity_) episodes_.pop_front();
}

std::vector<const Episode*> EpisodeBuffer::sample(std::int64_t n, Rng& rng) const {
  RLZOO_CHECK(!episodes_.empty(), "EpisodeBuffer::sample on an empty buffer");
  std::vector<const Episode*> out;
  for (std::int64_t i = 0; i < n; ++i) out.push_back(&episodes_[rng.below(episodes_.size())]);
  return out;
}

torch::Tensor gaussian_kl(const torch::Tensor& mu1, const torch::Tensor& logvar1, const torch::Tensor& mu2,
                          const torch::Tensor& logvar2) {
  return 0.5 * (logvar2 - logvar1 + (logvar1.exp() + (mu1 - mu2).pow(2)) / logvar2.exp() - 1).sum(-1);
}

VaeLoss vae_loss(BeliefEncoder& encoder, RewardDecoder& reward_decoder, torch::nn::Sequential* task_decoder,
                 const std::vector<const Episode*>& batch, bool segmented, const VaeConfig& cfg, Rng& rng) {
  // Episodes of equal length are encoded together (one batched GRU step per time step).
  std::map<std::int64_t, std::vector<const Episode*>> groups;
  for (const auto* e : batch) groups[e->length()].push_back(e);
  torch::Tensor rec_sum = torch::zeros({}), kl_sum = torch::zeros({}), task_sum = torch::zeros({});
  std::int64_t elbo_terms = 0, latents = 0;
  for (auto& [T, eps] : groups) {
    const auto B = static_cast<std::int64_t>(eps.size());
    std::vector<torch::Tensor> s, a, r, st, c;
    for (const auto* e : eps) {
      s.push_back(e->states);
      a.push_back(e->actions);
      r.push_back(e->rewards);
      st.push_back(e->segment_start);
      if (e->contexts.defined() && e->contexts.numel() > 0) c.push_back(e->contexts);
    }
    const auto states = torch::stack(s), actions = torch::stack(a), rewards = torch::stack(r);
    const auto starts = torch::stack(st);  // [B, T] bool
    const auto S = states.size(2), A = actions.size(2);
    const auto x = encoder->input(actions.reshape({B * T, A}), states.slice(1, 1).reshape({B * T, S}),
                                  rewards.reshape({B * T})).reshape({B, T, -1});
    const auto keep = (1 - starts.to(torch::kFloat32)).unsqueeze(-1);  // [B, T, 1]
    std::vector<torch::Tensor> hs{encoder->zero_hidden(B)};
    for (std::int64_t t = 0; t < T; ++t) {
      auto h = hs.back();
      if (segmented) h = h * keep.select(1, t);
      hs.push_back(encoder->step(x.select(1, t), h));
    }
    const auto hidden = torch::stack(hs, 1);  // [B, T + 1, H]: index t = after t steps
    auto [mu, logvar] = encoder->latent(hidden);
    // KL of each latent against the one before (index 0, the prior, against N(0, I)).
    const auto kl0 = gaussian_kl(mu.select(1, 0), logvar.select(1, 0), torch::zeros_like(mu.select(1, 0)),
                                 torch::zeros_like(logvar.select(1, 0)));
    const auto klt = gaussian_kl(mu.slice(1, 1), logvar.slice(1, 1), mu.slice(1, 0, T), logvar.slice(1, 0, T));
    kl_sum = kl_sum + kl0.sum() + klt.sum();
    latents += B * (T + 1);
    const auto z = mu + (0.5 * logvar).exp() * torch::randn_like(mu);

    // (episode, ELBO index, decoded step) triples; step j = 1..T decodes r_j from s_j, a_{j-1}, s_{j-1}.
    const auto seg_id = starts.to(torch::kInt64).cumsum(1);  // [B, T]
    const auto seg_acc = seg_id.accessor<std::int64_t, 2>();
    std::vector<std::int64_t> rb, rt, rj;
    std::vector<std::int64_t> elbo(static_cast<std::size_t>(T + 1));
    for (std::int64_t t = 0; t <= T; ++t) elbo[static_cast<std::size_t>(t)] = t;
    for (std::int64_t b = 0; b < B; ++b) {
      std::vector<std::int64_t> idx = elbo;
      if (cfg.elbo_samples > 0 && cfg.elbo_samples < T + 1) {  // a random subset, no repeats
        for (std::int64_t i = 0; i < cfg.elbo_samples; ++i)
          std::swap(idx[static_cast<std::size_t>(i)],
                    idx[static_cast<std::size_t>(i) + rng.below(static_cast<std::size_t>(T + 1 - i))]);
        idx.resize(static_cast<std::size_t>(cfg.elbo_samples));
      }
      for (auto t : idx) {
        std::vector<std::int64_t> steps;
        const auto sid = seg_acc[b][std::max<std::int64_t>(t, 1) - 1];
        for (std::int64_t j = 1; j <= T; ++j)
          if (!segmented || seg_acc[b][j - 1] == sid) steps.push_back(j);
        if (cfg.decode_samples > 0) {
          std::vector<std::int64_t> picked;
          for (std::int64_t i = 0; i < cfg.decode_samples; ++i) picked.push_back(steps[rng.below(steps.size())]);
          steps = std::move(picked);
        }
        for (auto j : steps) {
          rb.push_back(b);
          rt.push_back(t);
          rj.push_back(j);
        }
        ++elbo_terms;
      }
    }
    const auto ib = torch::tensor(rb), it = torch::tensor(rt), ij = torch::tensor(rj);
    const auto zz = z.index({ib, it});
    const auto pred = reward_decoder->forward(encoder, zz, states.index({ib, ij}), actions.index({ib, ij - 1}),
                                              states.index({ib, ij - 1}));
    rec_sum = rec_sum + (pred - rewards.index({ib, ij - 1})).pow(2).sum();
    if (task_decoder && !c.empty()) {
      const auto contexts = torch::stack(c);  // [B, T, C]
      // Latent t describes the context of step max(t, 1).
      auto target = torch::cat({contexts.slice(1, 0, 1), contexts}, 1);  // [B, T + 1, C]
      task_sum = task_sum + ((*task_decoder)->forward(z) - target).pow(2).sum(-1).sum();
    }
  }
  VaeLoss out;
  const auto rec = rec_sum / static_cast<double>(std::max<std::int64_t>(1, elbo_terms));
  const auto kl = kl_sum / static_cast<double>(latents);
  const auto task = task_sum / static_cast<double>(latents);
  out.total = rec + cfg.kl_weight * kl + cfg.task_loss_coeff * task;
  out.reward = rec.item<double>();
  out.kl = kl.item<double>();
  out.task = task.item<double>();
  return out;
}

}  // namespace rlzoo::secbad
