#include "algorithms/ppo/ppo_loss.h"

#include <algorithm>
#include <cmath>

#include "algorithms/ppo/ppo_fused_loss.h"
#include "algorithms/ppo/ppo_fused_update.h"
#include "rl/gradient_guard.h"
#include "rl/normalizers.h"
#include "rl/optim/zero_gradients.h"
#include "core/logging/logger.h"

namespace rlzoo {

PpoLoss ppo_loss(const ActionDistribution& dist, const torch::Tensor& values, const RolloutBuffer::Batch& mb,
                 const PpoConfig& cfg, double clip) {
  if (ppo_fused_loss_applies(dist, values, mb)) return ppo_fused_loss(dist, values, mb, cfg, clip);
  PpoLoss out;
  const auto log_prob = dist.log_prob(mb.actions);
  auto adv = mb.advantages;
  if (cfg.normalize_advantage && adv.size(0) > 1) adv = (adv - adv.mean()) / (adv.std() + 1e-8);
  const auto log_ratio = log_prob - mb.old_log_probs;
  const auto ratio = log_ratio.exp();
  const auto pg_loss = -torch::min(adv * ratio, adv * ratio.clamp(1.0 - clip, 1.0 + clip)).mean();
  auto values_pred = values;
  if (cfg.clip_range_vf)
    values_pred = mb.old_values + (values - mb.old_values).clamp(-*cfg.clip_range_vf, *cfg.clip_range_vf);
  const auto value_loss = torch::mse_loss(values_pred, mb.returns);
  const auto entropy_loss = -dist.entropy().mean();
  out.loss = pg_loss + cfg.ent_coef * entropy_loss + cfg.vf_coef * value_loss;
  torch::NoGradGuard no_grad;
  out.pg_loss = pg_loss.item<double>();
  out.value_loss = value_loss.item<double>();
  out.entropy_loss = entropy_loss.item<double>();
  out.approx_kl = ((ratio - 1) - log_ratio).mean().item<double>();
  out.clip_fraction = ((ratio - 1).abs() > clip).to(torch::kFloat32).mean().item<double>();
  return out;
}

void PpoUpdateStats::add_losses(const PpoLoss& l) {
  pg_losses.push_back(l.pg_loss);
  value_losses.push_back(l.value_loss);
  entropy_losses.push_back(l.entropy_loss);
  last_loss = l.loss.item<double>();
}

void PpoUpdateStats::record(Logger& log, const RolloutBuffer& buffer, double lr, double clip) const {
  auto mean = [](const std::vector<double>& v) {
    double s = 0;
    for (double x : v) s += x;
    return v.empty() ? 0.0 : s / static_cast<double>(v.size());
  };
  const auto values = buffer.values().flatten(), returns = buffer.returns().flatten();
  const double var_y = returns.var().item<double>();
  const double explained = var_y == 0 ? std::nan("") : 1.0 - (returns - values).var().item<double>() / var_y;
  log.record("train/policy_gradient_loss", mean(pg_losses));
  log.record("train/value_loss", mean(value_losses));
  log.record("train/entropy_loss", mean(entropy_losses));
  log.record("train/approx_kl", mean(approx_kls));
  log.record("train/clip_fraction", mean(clip_fractions));
  log.record("train/loss", last_loss);
  log.record("train/explained_variance", explained);
  log.record("train/learning_rate", lr);
  log.record("train/clip_range", clip);
}

PpoSchedule apply_ppo_schedule(const PpoConfig& cfg, torch::optim::Optimizer& optimizer, std::int64_t num_timesteps,
                               std::int64_t n_timesteps) {
  const double remaining =
      std::max(0.0, 1.0 - static_cast<double>(num_timesteps) / static_cast<double>(n_timesteps));
  const PpoSchedule s{cfg.lr_schedule == "linear" ? cfg.learning_rate * remaining : cfg.learning_rate,
                      cfg.clip_range_schedule == "linear" ? cfg.clip_range * remaining : cfg.clip_range};
  for (auto& group : optimizer.param_groups())
    static_cast<torch::optim::AdamOptions&>(group.options()).lr(s.learning_rate);
  return s;
}

PpoUpdateStats run_ppo_epochs(
    const PpoConfig& cfg, double clip, torch::optim::Optimizer& optimizer, const std::vector<torch::Tensor>& parameters,
    const std::function<std::vector<RolloutBuffer::Batch>()>& minibatches,
    const std::function<std::pair<ActionDistribution, torch::Tensor>(const RolloutBuffer::Batch&)>& evaluate,
    const std::function<void()>& before_step, std::int64_t& n_updates, std::int64_t num_timesteps,
    PpoFusedUpdate* plain) {
  PpoUpdateStats stats;
  for (std::int64_t epoch = 0; epoch < cfg.n_epochs; ++epoch) {
    for (auto& mb : minibatches()) {
      const bool passes = plain && plain->applies(mb);
      PpoLoss l;
      if (passes) {
        l = plain->forward(mb, cfg, clip);
      } else {
        auto [dist, values] = evaluate(mb);
        l = ppo_loss(dist, values, mb, cfg, clip);
      }
      stats.add_ratio_stats(l);
      if (cfg.target_kl && l.approx_kl > 1.5 * *cfg.target_kl) return stats;
      zero_gradients(optimizer);
      if (passes)
        plain->backward(cfg);
      else
        l.loss.backward();
      if (before_step) before_step();
      clip_and_check_gradients(parameters, cfg.max_grad_norm, l.loss, {"PPO gradient step", n_updates + 1, num_timesteps});
      optimizer.step();
      ++n_updates;
      stats.add_losses(l);
    }
  }
  return stats;
}

void ppo_step_rewards_into(std::span<const double> rewards, std::span<const std::uint8_t> terminated,
                           std::span<const std::uint8_t> truncated, RewardNormalizer* norm, double gamma,
                           const std::function<torch::Tensor(const torch::Tensor& rows)>& final_values,
                           float* scaled, float* dones) {
  // Plain loops: a step of a few envs is too small for tensor operations to pay.
  const auto n = static_cast<std::int64_t>(rewards.size());
  std::vector<std::int64_t> timeouts;
  for (std::int64_t i = 0; i < n; ++i) {
    const auto k = static_cast<std::size_t>(i);
    dones[i] = (terminated[k] != 0 || truncated[k] != 0) ? 1.0f : 0.0f;
    scaled[i] = static_cast<float>(rewards[k]);
    if (truncated[k] != 0 && terminated[k] == 0) timeouts.push_back(i);
  }
  if (norm) {
    const auto normalised = norm->normalize(torch::from_blob(scaled, {n}), torch::from_blob(dones, {n}),
                                            /*update=*/true).contiguous();
    std::copy_n(normalised.data_ptr<float>(), n, scaled);
  }
  if (!timeouts.empty()) {
    const auto values = final_values(torch::tensor(timeouts, torch::kInt64)).to(torch::kFloat32).contiguous();
    RLZOO_CHECK(values.numel() == static_cast<std::int64_t>(timeouts.size()),
                "PPO: the time-outs' final values have the wrong size");
    const float* v = values.data_ptr<float>();
    const auto g = static_cast<float>(gamma);
    for (std::size_t j = 0; j < timeouts.size(); ++j) scaled[timeouts[j]] += g * v[j];
  }
}

StepRewards ppo_step_rewards(std::span<const double> rewards, std::span<const std::uint8_t> terminated,
                             std::span<const std::uint8_t> truncated, RewardNormalizer* norm, double gamma,
                             const std::function<torch::Tensor(const torch::Tensor& rows)>& final_values) {
  const auto n = static_cast<std::int64_t>(rewards.size());
  StepRewards out{torch::empty({n}), torch::empty({n})};
  ppo_step_rewards_into(rewards, terminated, truncated, norm, gamma, final_values, out.rewards.data_ptr<float>(),
                        out.dones.data_ptr<float>());
  return out;
}

void add_ppo_step(RolloutBuffer& buffer, const std::vector<torch::Tensor>& obs, const torch::Tensor& actions,
                  const torch::Tensor& values, const torch::Tensor& log_probs, const torch::Tensor& masks,
                  const torch::Tensor& episode_starts, std::span<const double> rewards,
                  std::span<const std::uint8_t> terminated, std::span<const std::uint8_t> truncated,
                  RewardNormalizer* norm, double gamma,
                  const std::function<torch::Tensor(const torch::Tensor& rows)>& final_values) {
  const StepRewards step = ppo_step_rewards(rewards, terminated, truncated, norm, gamma, final_values);
  buffer.add(obs, actions, step.rewards, step.dones, values, log_probs, masks, episode_starts);
}

}  // namespace rlzoo
