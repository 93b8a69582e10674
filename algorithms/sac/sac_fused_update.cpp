#include "algorithms/sac/sac_fused_update.h"

#include <cmath>

#include "core/common/error.h"

namespace rlzoo {

namespace {

constexpr float kHalfLog2Pi = 0.918938533204672741780329736f;  // 0.5 log(2 pi)
constexpr float kLog2 = 0.693147180559945309417232121f;

// softplus(x) = log(1 + exp(x)) as LibTorch computes it (beta 1, linear above 20).
inline float softplus(float x) { return x > 20.0f ? x : std::log1p(std::exp(x)); }

// The squashed Gaussian's draw from the actor's output rows [mean (d), log-std before the
// clamp (d)] and noise, as sac_loss.cpp's squashed_gaussian_sample: u, a = tanh(u), z, the
// clamped log-std and log pi(a) per row.
void squashed_draw(const float* out, const float* noise, std::int64_t rows, std::int64_t d, float* u, float* a,
                   float* z, float* log_std, float* log_prob) {
  for (std::int64_t r = 0; r < rows; ++r) {
    float gaussian = 0.0f, jacobian = 0.0f;
    for (std::int64_t j = 0; j < d; ++j) {
      const std::int64_t i = r * d + j;
      const float mean = out[r * 2 * d + j];
      const float ls = std::min(std::max(out[r * 2 * d + d + j], static_cast<float>(kLogStdMin)),
                                static_cast<float>(kLogStdMax));
      const float ui = mean + std::exp(ls) * noise[i];
      const float zi = (ui - mean) * std::exp(-ls);
      u[i] = ui;
      a[i] = std::tanh(ui);
      z[i] = zi;
      log_std[i] = ls;
      gaussian += -0.5f * zi * zi - ls - kHalfLog2Pi;
      jacobian += 2.0f * (kLog2 - ui - softplus(-2.0f * ui));
    }
    log_prob[r] = gaussian - jacobian;
  }
}

}  // namespace

std::unique_ptr<SacFusedUpdate> SacFusedUpdate::make(const SquashedGaussianActor& actor, const ContinuousCritic& critic,
                                                     const ContinuousCritic& critic_target) {
  const FusedMlp* pi = actor->plain_chain();
  if (!pi) return nullptr;
  auto critics = FusedCritics::of(critic, pi->in_features(), actor->action_dim());
  auto targets = FusedCritics::of(critic_target, pi->in_features(), actor->action_dim());
  if (!critics || !targets || critics->size() != targets->size()) return nullptr;
  return std::unique_ptr<SacFusedUpdate>(new SacFusedUpdate(*pi, std::move(*critics), std::move(*targets)));
}

SacFusedUpdate::SacFusedUpdate(const FusedMlp& actor, FusedCritics critics, FusedCritics targets)
    : actor_(actor),
      critics_(std::move(critics)),
      targets_(std::move(targets)),
      obs_dim_(actor.in_features()),
      action_dim_(actor.out_features() / 2) {}

bool SacFusedUpdate::applies() const {
  return actor_.plain_parameters() && critics_.plain_parameters() && targets_.plain_parameters();
}

double SacFusedUpdate::sample_policy(const Batch& batch, const float* noise) {
  const std::int64_t rows = batch.rows, n = rows * action_dim_;
  batch_ = &batch;
  noise_.assign(noise, noise + n);
  for (auto* v : {&u_, &a_, &z_, &log_std_}) v->resize(static_cast<std::size_t>(n));
  log_prob_.resize(static_cast<std::size_t>(rows));
  const float* out = actor_.forward_tape(batch.obs, rows, actor_tape_);
  squashed_draw(out, noise_.data(), rows, action_dim_, u_.data(), a_.data(), z_.data(), log_std_.data(),
                log_prob_.data());
  double sum = 0.0;
  for (const float lp : log_prob_) sum += lp;
  return sum / static_cast<double>(rows);
}

double SacFusedUpdate::critic_gradients(const Batch& batch, const float* next_noise, double alpha) {
  const std::int64_t rows = batch.rows, d = action_dim_, n = rows * d;
  const auto alpha_f = static_cast<float>(alpha);
  // The target: the policy's draw on the next observations through the target critics.
  next_out_.resize(static_cast<std::size_t>(rows * 2 * d));
  for (auto* v : {&next_u_, &next_a_, &next_z_, &next_log_std_}) v->resize(static_cast<std::size_t>(n));
  next_log_prob_.resize(static_cast<std::size_t>(rows));
  RLZOO_CHECK(actor_.forward_rows(batch.next_obs, rows, next_out_.data(), scratch_));
  squashed_draw(next_out_.data(), next_noise, rows, d, next_u_.data(), next_a_.data(), next_z_.data(),
                next_log_std_.data(), next_log_prob_.data());
  target_.resize(static_cast<std::size_t>(rows));
  targets_.min_q(batch.next_obs, next_a_.data(), rows, targets_.size(), target_.data());
  for (std::int64_t r = 0; r < rows; ++r) {
    const float soft_value = target_[r] - alpha_f * next_log_prob_[r];
    target_[r] = batch.rewards[r] + batch.discounts[r] * (1.0f - batch.terminated[r]) * soft_value;
  }
  return critics_.regression_gradients(batch.obs, batch.actions, target_.data(), rows, 0.5);
}

double SacFusedUpdate::actor_gradients(double alpha) {
  RLZOO_CHECK(batch_, "SacFusedUpdate::actor_gradients before sample_policy");
  const std::int64_t rows = batch_->rows, d = action_dim_;
  const auto alpha_f = static_cast<float>(alpha);
  const float inv_rows = 1.0f / static_cast<float>(rows);
  // min_i Q_i(s, a) with the critics as they are now, and its gradient at a.
  q_min_.resize(static_cast<std::size_t>(rows));
  critics_.min_q_taped(batch_->obs, a_.data(), rows, critics_.size(), q_min_.data());
  double loss = 0.0;
  for (std::int64_t r = 0; r < rows; ++r) loss += static_cast<double>(alpha_f * log_prob_[r] - q_min_[r]);
  loss /= static_cast<double>(rows);
  dq_.assign(static_cast<std::size_t>(rows), -inv_rows);
  grad_a_.resize(static_cast<std::size_t>(rows * d));
  critics_.action_gradients(dq_.data(), grad_a_.data());
  // Back through a = tanh(u), u = mean + exp(log_std) noise and log pi (sac_loss.cpp), term by
  // term as autograd takes them; the clamp passes the gradient only inside [-20, 2].
  const float g_log_prob = alpha_f * inv_rows;
  const float* out = actor_tape_.outputs.data() + (actor_tape_.outputs.size() - static_cast<std::size_t>(rows * 2 * d));
  grad_out_.resize(static_cast<std::size_t>(rows * 2 * d));
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t j = 0; j < d; ++j) {
      const std::int64_t i = r * d + j;
      const float a = a_[i], u = u_[i], z = z_[i], ls = log_std_[i];
      const float inv_std = std::exp(-ls), x = -2.0f * u;
      const float softplus_grad = x > 20.0f ? 1.0f : std::exp(x) / (std::exp(x) + 1.0f);
      const float g_u = grad_a_[i] * (1.0f - a * a) + g_log_prob * ((2.0f - 4.0f * softplus_grad) - z * inv_std);
      const float g_mean = g_u + g_log_prob * z * inv_std;
      const float g_ls = g_u * std::exp(ls) * noise_[i] - g_log_prob + g_log_prob * z * z;
      const float raw = out[r * 2 * d + d + j];
      grad_out_[r * 2 * d + j] = g_mean;
      grad_out_[r * 2 * d + d + j] =
          raw >= static_cast<float>(kLogStdMin) && raw <= static_cast<float>(kLogStdMax) ? g_ls : 0.0f;
    }
  actor_.backward_tape(actor_tape_, grad_out_.data(), /*parameter_grads=*/true, nullptr);
  batch_ = nullptr;
  return loss;
}

}  // namespace rlzoo
