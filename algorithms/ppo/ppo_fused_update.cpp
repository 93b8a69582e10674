#include "algorithms/ppo/ppo_fused_update.h"

#include "algorithms/ppo/ppo_fused_loss.h"
#include "core/torch/plain_tensor.h"

namespace rlzoo {

bool PpoFusedUpdate::applies(const RolloutBuffer::Batch& mb) const {
  const auto [pi, vf] = policy_->plain_chains();
  if (!pi || policy_->continuous() || !pi->plain_parameters() || !vf->plain_parameters()) return false;
  if (mb.obs.size() != 1 || !is_plain_cpu(mb.obs[0], torch::kFloat32) || mb.obs[0].dim() < 1) return false;
  const std::int64_t rows = mb.obs[0].size(0);
  if (mb.obs[0].numel() != rows * pi->in_features()) return false;
  for (const auto* t : {&mb.old_values, &mb.old_log_probs, &mb.advantages, &mb.returns})
    if (!is_plain_cpu(*t, torch::kFloat32) || t->dim() != 1 || t->size(0) != rows) return false;
  if (!is_plain_cpu(mb.actions, torch::kInt64) || mb.actions.dim() != 1 || mb.actions.size(0) != rows) return false;
  return !mb.action_masks.defined() ||
         (is_plain_cpu(mb.action_masks, torch::kBool) && mb.action_masks.sizes() == torch::IntArrayRef{rows, pi->out_features()});
}

PpoLoss PpoFusedUpdate::forward(const RolloutBuffer::Batch& mb, const PpoConfig& cfg, double clip) {
  std::tie(pi_, vf_) = policy_->plain_chains();
  const std::int64_t rows = mb.obs[0].size(0), n = pi_->out_features();
  const float* obs = mb.obs[0].data_ptr<float>();
  rows_ = {pi_->forward_tape(obs, rows, pi_tape_),
           vf_->forward_tape(obs, rows, vf_tape_),
           mb.actions.data_ptr<std::int64_t>(),
           mb.action_masks.defined() ? mb.action_masks.data_ptr<bool>() : nullptr,
           rows,
           n};
  log_probs_.resize(static_cast<std::size_t>(rows * n));
  row_grads_.resize(static_cast<std::size_t>(rows * 3));
  return ppo_categorical_loss_rows(rows_, mb, cfg, clip, log_probs_.data(), row_grads_.data());
}

void PpoFusedUpdate::backward(const PpoConfig& cfg) {
  d_logits_.resize(log_probs_.size());
  d_values_.resize(static_cast<std::size_t>(rows_.rows));
  ppo_categorical_gradient_rows(log_probs_.data(), row_grads_.data(), rows_, cfg.ent_coef, /*g=*/1.0,
                                d_logits_.data(), d_values_.data());
  pi_->backward_tape(pi_tape_, d_logits_.data(), /*parameter_grads=*/true, nullptr);
  vf_->backward_tape(vf_tape_, d_values_.data(), /*parameter_grads=*/true, nullptr);
}

}  // namespace rlzoo
