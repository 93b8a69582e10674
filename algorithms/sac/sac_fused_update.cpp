#include "algorithms/sac/sac_fused_update.h"

#include <cmath>
#include <limits>

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
  std::vector<const FusedMlp*> critics, targets;
  for (int i = 0; i < critic->n_critics(); ++i) {
    critics.push_back(critic->plain_chain(i));
    targets.push_back(critic_target->plain_chain(i));
    if (!critics.back() || !targets.back()) return nullptr;
  }
  if (critic->n_critics() != critic_target->n_critics() ||
      critics[0]->in_features() != pi->in_features() + actor->action_dim())
    return nullptr;
  return std::unique_ptr<SacFusedUpdate>(new SacFusedUpdate(*pi, std::move(critics), std::move(targets)));
}

SacFusedUpdate::SacFusedUpdate(const FusedMlp& actor, std::vector<const FusedMlp*> critics,
                               std::vector<const FusedMlp*> targets)
    : actor_(actor),
      critics_(std::move(critics)),
      targets_(std::move(targets)),
      obs_dim_(actor.in_features()),
      action_dim_(actor.out_features() / 2),
      critic_tapes_(critics_.size()) {}

bool SacFusedUpdate::applies() const {
  if (!actor_.plain_parameters()) return false;
  for (std::size_t i = 0; i < critics_.size(); ++i)
    if (!critics_[i]->plain_parameters() || !targets_[i]->plain_parameters()) return false;
  return true;
}

void SacFusedUpdate::critic_input(const float* obs, const float* actions, std::int64_t rows) {
  const std::int64_t o = obs_dim_, d = action_dim_, w = o + d;
  critic_in_.resize(static_cast<std::size_t>(rows * w));
  for (std::int64_t r = 0; r < rows; ++r) {
    std::copy(obs + r * o, obs + (r + 1) * o, critic_in_.data() + r * w);
    std::copy(actions + r * d, actions + (r + 1) * d, critic_in_.data() + r * w + o);
  }
}

double SacFusedUpdate::sample_policy(const Batch& batch, const float* noise) {
  const std::int64_t rows = batch.rows, n = rows * action_dim_;
  batch_ = &batch;
  rows_ = rows;
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
  critic_input(batch.next_obs, next_a_.data(), rows);
  target_.assign(static_cast<std::size_t>(rows), std::numeric_limits<float>::infinity());
  q_one_.resize(static_cast<std::size_t>(rows));
  for (const FusedMlp* t : targets_) {
    RLZOO_CHECK(t->forward_rows(critic_in_.data(), rows, q_one_.data(), scratch_));
    for (std::int64_t r = 0; r < rows; ++r) target_[r] = std::min(target_[r], q_one_[r]);
  }
  for (std::int64_t r = 0; r < rows; ++r) {
    const float soft_value = target_[r] - alpha_f * next_log_prob_[r];
    target_[r] = batch.rewards[r] + batch.discounts[r] * (1.0f - batch.terminated[r]) * soft_value;
  }
  // The critics on the stored actions, their loss and its gradient.
  critic_input(batch.obs, batch.actions, rows);
  dy_.resize(static_cast<std::size_t>(rows));
  const float scale = 0.5f / static_cast<float>(rows);
  double loss = 0.0;
  for (std::size_t i = 0; i < critics_.size(); ++i) {
    const float* q = critics_[i]->forward_tape(critic_in_.data(), rows, critic_tapes_[i]);
    double sum = 0.0;
    for (std::int64_t r = 0; r < rows; ++r) {
      const float diff = q[r] - target_[r];
      sum += static_cast<double>(diff) * diff;
      dy_[r] = 2.0f * diff * scale;
    }
    loss += 0.5 * sum / static_cast<double>(rows);
    critics_[i]->backward_tape(critic_tapes_[i], dy_.data(), /*parameter_grads=*/true, nullptr);
  }
  return loss;
}

double SacFusedUpdate::actor_gradients(double alpha) {
  RLZOO_CHECK(batch_, "SacFusedUpdate::actor_gradients before sample_policy");
  const std::int64_t rows = rows_, d = action_dim_, o = obs_dim_, w = o + d;
  const auto alpha_f = static_cast<float>(alpha);
  // min_i Q_i(s, a) with the critics as they are now; the gradient goes to the first critic
  // that holds the minimum, as LibTorch's min(0) sends it.
  critic_input(batch_->obs, a_.data(), rows);
  const std::size_t k = critics_.size();
  q_.resize(k * static_cast<std::size_t>(rows));
  for (std::size_t i = 0; i < k; ++i) {
    const float* q = critics_[i]->forward_tape(critic_in_.data(), rows, critic_tapes_[i]);
    std::copy(q, q + rows, q_.data() + i * rows);
  }
  double loss = 0.0;
  grad_a_.assign(static_cast<std::size_t>(rows * d), 0.0f);
  dy_.resize(static_cast<std::size_t>(rows));
  dx_.resize(static_cast<std::size_t>(rows * w));
  const float inv_rows = 1.0f / static_cast<float>(rows);
  std::vector<std::size_t> chosen(static_cast<std::size_t>(rows), 0);
  for (std::int64_t r = 0; r < rows; ++r) {
    std::size_t best = 0;
    for (std::size_t i = 1; i < k; ++i)
      if (q_[i * rows + r] < q_[best * rows + r]) best = i;
    chosen[r] = best;
    loss += static_cast<double>(alpha_f * log_prob_[r] - q_[best * rows + r]);
  }
  loss /= static_cast<double>(rows);
  for (std::size_t i = 0; i < k; ++i) {
    bool any = false;
    for (std::int64_t r = 0; r < rows; ++r) {
      dy_[r] = chosen[r] == i ? -inv_rows : 0.0f;
      any = any || chosen[r] == i;
    }
    if (!any) continue;
    critics_[i]->backward_tape(critic_tapes_[i], dy_.data(), /*parameter_grads=*/false, dx_.data());
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t j = 0; j < d; ++j) grad_a_[r * d + j] += dx_[r * w + o + j];
  }
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
