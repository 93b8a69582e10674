#include "algorithms/dqn/dqn_fused_update.h"

#include "core/common/error.h"
#include "rl/nets/observation.h"

namespace rlzoo {

DqnFusedUpdate::Batch DqnFusedUpdate::rows_of(const ReplaySample& sample, const Space& observation_space,
                                              std::int64_t action_offset, torch::Tensor& obs,
                                              torch::Tensor& next_obs) {
  const std::int64_t rows = sample.rewards.size(0);
  obs = float_observation_rows(observation_space, sample.obs, "DQN's plain-pass update");
  next_obs = float_observation_rows(observation_space, sample.next_obs, "DQN's plain-pass update");
  for (const auto* t : {&sample.actions, &sample.rewards, &sample.discounts, &sample.terminated})
    RLZOO_CHECK(t->is_contiguous() && t->dim() == 1 && t->size(0) == rows, "a replay sample's columns are [rows]");
  return {obs.data_ptr<float>(),
          next_obs.data_ptr<float>(),
          sample.actions.data_ptr<std::int64_t>(),
          action_offset,
          sample.rewards.data_ptr<float>(),
          sample.discounts.data_ptr<float>(),
          sample.terminated.data_ptr<float>(),
          rows};
}

std::unique_ptr<DqnFusedUpdate> DqnFusedUpdate::make(const QNetwork& q, const QNetwork& target) {
  const FusedMlp* chain = q->plain_chain();
  const FusedMlp* target_chain = target->plain_chain();
  if (!chain || !target_chain) return nullptr;
  return std::unique_ptr<DqnFusedUpdate>(new DqnFusedUpdate(*chain, *target_chain));
}

bool DqnFusedUpdate::applies() const { return q_.plain_parameters() && target_.plain_parameters(); }

DqnLossValue DqnFusedUpdate::gradients(const Batch& batch, bool double_q, bool huber) {
  const std::int64_t rows = batch.rows, n = q_.out_features();
  const auto cells = static_cast<std::size_t>(rows * n);
  next_q_.resize(cells);
  RLZOO_CHECK(target_.forward_rows(batch.next_obs, rows, next_q_.data(), scratch_));
  if (double_q) {
    online_next_q_.resize(cells);
    RLZOO_CHECK(q_.forward_rows(batch.next_obs, rows, online_next_q_.data(), scratch_));
  }
  targets_.resize(static_cast<std::size_t>(rows));
  dqn_target_rows(next_q_.data(), double_q ? online_next_q_.data() : nullptr, batch.rewards, batch.discounts,
                  batch.terminated, rows, n, targets_.data());
  const float* q = q_.forward_tape(batch.obs, rows, tape_);
  slope_.resize(static_cast<std::size_t>(rows));
  const DqnLossValue loss =
      dqn_td_rows(q, n, batch.actions, batch.action_offset, targets_.data(), rows, huber, slope_.data());
  // The loss's gradient at the Q table: the slope at each row's taken action, zero elsewhere.
  dq_.assign(cells, 0.0f);
  for (std::int64_t i = 0; i < rows; ++i) dq_[i * n + (batch.actions[i] - batch.action_offset)] = slope_[i];
  q_.backward_tape(tape_, dq_.data(), /*parameter_grads=*/true, nullptr);
  return loss;
}

}  // namespace rlzoo
