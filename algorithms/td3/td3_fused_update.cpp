#include "algorithms/td3/td3_fused_update.h"

#include <algorithm>
#include <cmath>

#include "core/common/error.h"

namespace rlzoo {

std::unique_ptr<Td3FusedUpdate> Td3FusedUpdate::make(const DeterministicActor& actor,
                                                     const DeterministicActor& actor_target,
                                                     const ContinuousCritic& critic,
                                                     const ContinuousCritic& critic_target) {
  const FusedMlp* pi = actor->plain_chain();
  const FusedMlp* pi_target = actor_target->plain_chain();
  if (!pi || !pi_target) return nullptr;
  auto critics = FusedCritics::of(critic, pi->in_features(), pi->out_features());
  auto targets = FusedCritics::of(critic_target, pi->in_features(), pi->out_features());
  if (!critics || !targets || critics->size() != targets->size()) return nullptr;
  return std::unique_ptr<Td3FusedUpdate>(new Td3FusedUpdate(*pi, *pi_target, std::move(*critics), std::move(*targets)));
}

Td3FusedUpdate::Td3FusedUpdate(const FusedMlp& actor, const FusedMlp& actor_target, FusedCritics critics,
                               FusedCritics targets)
    : actor_(actor),
      actor_target_(actor_target),
      critics_(std::move(critics)),
      targets_(std::move(targets)),
      action_dim_(actor.out_features()) {}

bool Td3FusedUpdate::applies() const {
  return actor_.plain_parameters() && actor_target_.plain_parameters() && critics_.plain_parameters() &&
         targets_.plain_parameters();
}

double Td3FusedUpdate::critic_gradients(const ReplayRows& batch, const float* noise, double sigma, double clip) {
  const std::int64_t rows = batch.rows, n = rows * action_dim_;
  const auto sigma_f = static_cast<float>(sigma), clip_f = static_cast<float>(clip);
  // Target-policy smoothing (td3_smoothed_actions) on tanh of the target actor's output.
  next_a_.resize(static_cast<std::size_t>(n));
  RLZOO_CHECK(actor_target_.forward_rows(batch.next_obs, rows, next_a_.data(), scratch_));
  for (std::int64_t i = 0; i < n; ++i) {
    const float smoothing = std::clamp(noise[i] * sigma_f, -clip_f, clip_f);
    next_a_[i] = std::clamp(std::tanh(next_a_[i]) + smoothing, -1.0f, 1.0f);
  }
  target_.resize(static_cast<std::size_t>(rows));
  targets_.min_q(batch.next_obs, next_a_.data(), rows, targets_.size(), target_.data());
  for (std::int64_t r = 0; r < rows; ++r)
    target_[r] = batch.rewards[r] + batch.discounts[r] * (1.0f - batch.terminated[r]) * target_[r];
  return critics_.regression_gradients(batch.obs, batch.actions, target_.data(), rows, 1.0);
}

double Td3FusedUpdate::actor_gradients(const ReplayRows& batch) {
  const std::int64_t rows = batch.rows, n = rows * action_dim_;
  const float* out = actor_.forward_tape(batch.obs, rows, actor_tape_);
  a_.resize(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) a_[i] = std::tanh(out[i]);
  q_.resize(static_cast<std::size_t>(rows));
  critics_.min_q_taped(batch.obs, a_.data(), rows, /*n=*/1, q_.data());
  double loss = 0.0;
  for (std::int64_t r = 0; r < rows; ++r) loss -= q_[r];
  loss /= static_cast<double>(rows);
  dq_.assign(static_cast<std::size_t>(rows), -1.0f / static_cast<float>(rows));
  grad_a_.resize(static_cast<std::size_t>(n));
  critics_.action_gradients(dq_.data(), grad_a_.data());
  for (std::int64_t i = 0; i < n; ++i) grad_a_[i] *= 1.0f - a_[i] * a_[i];  // through the tanh
  actor_.backward_tape(actor_tape_, grad_a_.data(), /*parameter_grads=*/true, nullptr);
  return loss;
}

}  // namespace rlzoo
