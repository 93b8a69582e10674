// The Q(s, a) critics of the off-policy continuous-control learners (ContinuousCritic: n
// MLPs on [observation, action] rows) as fused chains on raw memory, with the three passes
// their updates need: the minimum over the target critics, the regression loss with its
// gradients, and the gradient of min_i Q_i with respect to the actions. The plain-pass updates
// of SAC and TD3 (algorithms/sac/sac_fused_update.h, algorithms/td3/td3_fused_update.h) share
// them; the arithmetic is the LibTorch losses' (sac_loss.h, td3_loss.h) to float rounding.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "rl/nets/continuous_control.h"
#include "rl/nets/fused_mlp.h"

namespace rlzoo {

class FusedCritics {
 public:
  // The critics' plain chains (ContinuousCritic::plain_chain), or nothing where one has none or
  // the input is not obs_dim + action_dim wide. The critic must outlive the result.
  static std::optional<FusedCritics> of(const ContinuousCritic& critic, std::int64_t obs_dim, std::int64_t action_dim);

  int size() const { return static_cast<int>(chains_.size()); }
  bool plain_parameters() const;

  // out[r] = min over the first `n` critics of Q_i(obs_r, actions_r); no gradients.
  void min_q(const float* obs, const float* actions, std::int64_t rows, int n, float* out);

  // scale x sum_i mean_r((Q_i(obs_r, actions_r) - target_r)^2), its gradients accumulated into
  // every critic's parameters.
  double regression_gradients(const float* obs, const float* actions, const float* target, std::int64_t rows,
                              double scale);

  // q_min[r] = min over the first `n` critics of Q_i(obs_r, actions_r), kept for
  // action_gradients(), which then gives grad_a [rows, action_dim] = dq[r] x d Q_chosen / d a
  // (the first critic holding the minimum, as LibTorch's min(0) chooses). No parameter
  // gradients.
  void min_q_taped(const float* obs, const float* actions, std::int64_t rows, int n, float* q_min);
  void action_gradients(const float* dq, float* grad_a);

 private:
  explicit FusedCritics(std::vector<const FusedMlp*> chains, std::int64_t obs_dim, std::int64_t action_dim);
  void input(const float* obs, const float* actions, std::int64_t rows);  // rows into input_

  std::vector<const FusedMlp*> chains_;
  std::int64_t obs_dim_, action_dim_;
  std::vector<FusedMlp::Tape> tapes_;
  std::vector<float> input_, q_, dy_, dx_, scratch_;
  std::vector<int> chosen_;
  std::int64_t taped_rows_ = 0;
  int taped_n_ = 0;
};

}  // namespace rlzoo
