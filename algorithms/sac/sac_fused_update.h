// SAC's gradient step (sac_loss.h's arithmetic) as plain passes over memory the class keeps from
// step to step: the networks' fused chains forward and back (rl/nets/fused_mlp.h), and the
// squashed Gaussian's draw, log-probability, targets and losses with their gradients worked out
// by hand. On the small networks SAC trains on vector observations the ~200 LibTorch operations
// and autograd nodes of a step cost more than its matrix products (`rlzoo bench learner`,
// docs/performance.md); this step has none but the products.
//
// The same arithmetic as SacAgent's LibTorch step to float rounding, on the same random draws
// (tests/algorithms/sac_fused_update_test.cpp compares the two over several steps). The agent
// runs the phases in SB3's order, with its optimisers between them:
//   sample_policy()     the policy's reparameterised draw on the batch (log pi for the
//                       entropy coefficient's step);
//   critic_gradients()  the soft target from the target critics, the critics' loss and its
//                       gradients;
//   actor_gradients()   after the critics' step: the actor's loss at the draw and its gradients.
// Gradients accumulate into the parameters' .grad() (the caller zeroes them first).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "rl/buffers/replay_rows.h"
#include "rl/nets/continuous_control.h"
#include "rl/nets/fused_critics.h"
#include "rl/nets/fused_mlp.h"

namespace rlzoo {

class SacFusedUpdate {
 public:
  using Batch = ReplayRows;

  // Null unless the networks have plain chains (SquashedGaussianActor::plain_chain(),
  // ContinuousCritic::plain_chain(): a float32 Box observation, tanh or ReLU, no gSDE). The
  // networks must outlive the update; applies() says whether a step may run now.
  static std::unique_ptr<SacFusedUpdate> make(const SquashedGaussianActor& actor, const ContinuousCritic& critic,
                                              const ContinuousCritic& critic_target);

  // Whether every parameter is a contiguous float32 CPU tensor (not after a move to a device).
  bool applies() const;

  std::int64_t obs_dim() const { return obs_dim_; }
  std::int64_t action_dim() const { return action_dim_; }

  // a = tanh(mean + exp(log_std) noise) on the batch's observations, noise [rows, action_dim];
  // kept with the batch for actor_gradients(). Returns the mean of log pi(a | s) over the rows.
  double sample_policy(const Batch& batch, const float* noise);

  // The critics' loss 0.5 sum_i mean((Q_i(s, a) - y)^2), y = r + discount (1 - terminated)
  // (min_i Q'_i(s', a') - alpha log pi(a' | s')) with a' drawn with next_noise [rows,
  // action_dim]; its gradients accumulate into the critics' parameters.
  double critic_gradients(const Batch& batch, const float* next_noise, double alpha);

  // The actor's loss mean(alpha log pi(a | s) - min_i Q_i(s, a)) at sample_policy()'s draw, with
  // the critics as they are now; its gradients accumulate into the actor's parameters.
  double actor_gradients(double alpha);

 private:
  SacFusedUpdate(const FusedMlp& actor, FusedCritics critics, FusedCritics targets);

  const FusedMlp& actor_;
  FusedCritics critics_, targets_;
  std::int64_t obs_dim_, action_dim_;

  // The policy's draw on the batch (sample_policy): pre-squash u, a = tanh(u), z = (u - mean) /
  // std, the clamped log-std, log pi per row.
  const Batch* batch_ = nullptr;
  FusedMlp::Tape actor_tape_;
  std::vector<float> noise_, u_, a_, z_, log_std_, log_prob_;
  // The target's draw, the targets, the gradients.
  std::vector<float> next_out_, next_u_, next_a_, next_z_, next_log_std_, next_log_prob_, scratch_;
  std::vector<float> target_, q_min_, dq_, grad_a_, grad_out_;
};

}  // namespace rlzoo
