// TD3's (and DDPG's) gradient step (td3_loss.h's arithmetic) as plain passes over memory the
// class keeps from step to step, as SAC's (algorithms/sac/sac_fused_update.h): the target
// actor and critics forward, the critics' regression and the actor's loss -mean Q_1(s, pi(s))
// back, with the smoothing, tanh and target worked out by hand. The same arithmetic as
// Td3Agent's LibTorch step to float rounding, on the same random draws
// (tests/algorithms/td3_fused_update_test.cpp).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "rl/buffers/replay_rows.h"
#include "rl/nets/continuous_control.h"
#include "rl/nets/fused_critics.h"
#include "rl/nets/fused_mlp.h"

namespace rlzoo {

class Td3FusedUpdate {
 public:
  // Null unless every network has plain chains (DeterministicActor::plain_chain(),
  // ContinuousCritic::plain_chain()). The networks must outlive the update.
  static std::unique_ptr<Td3FusedUpdate> make(const DeterministicActor& actor, const DeterministicActor& actor_target,
                                              const ContinuousCritic& critic, const ContinuousCritic& critic_target);

  // Whether every parameter is a contiguous float32 CPU tensor (not after a move to a device).
  bool applies() const;

  // The critics' loss sum_i mean((Q_i(s, a) - y)^2), y = r + discount (1 - terminated) min_i
  // Q'_i(s', a'), a' = clamp(pi'(s') + clamp(sigma noise, -clip, clip), -1, 1) with noise
  // [rows, action_dim]; its gradients accumulate into the critics' parameters.
  double critic_gradients(const ReplayRows& batch, const float* noise, double sigma, double clip);

  // The actor's loss -mean(Q_1(s, pi(s))) with the critics as they are now; its gradients
  // accumulate into the actor's parameters (not the critics').
  double actor_gradients(const ReplayRows& batch);

 private:
  Td3FusedUpdate(const FusedMlp& actor, const FusedMlp& actor_target, FusedCritics critics, FusedCritics targets);

  const FusedMlp &actor_, &actor_target_;
  FusedCritics critics_, targets_;
  std::int64_t action_dim_;
  FusedMlp::Tape actor_tape_;
  std::vector<float> next_a_, target_, a_, q_, dq_, grad_a_, scratch_;
};

}  // namespace rlzoo
