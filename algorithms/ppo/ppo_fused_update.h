// PPO's minibatch step for a Categorical policy as plain passes, as DQN's
// (algorithms/dqn/dqn_fused_update.h): the actor's and the critic's chains on the minibatch's
// observation rows with their layer outputs kept, the loss's pass and its gradient pass
// (ppo_fused_loss.h's, shared with its autograd node), and the chains' backward passes into the
// parameters' gradients. It skips the autograd graph, the distribution object and the tensors
// around them, which cost a sixth of a 64-64 update (`rlzoo bench learner`). The same kernels
// in the same order as the autograd step, so the same gradients bit for bit
// (tests/algorithms/ppo_fused_update_test.cpp). Diagonal Gaussian policies, recurrent or
// shared trunks, other encoders and devices take the autograd step.
#pragma once

#include <memory>
#include <vector>

#include "algorithms/ppo/ppo_config.h"
#include "algorithms/ppo/ppo_fused_loss.h"
#include "algorithms/ppo/ppo_loss.h"
#include "rl/buffers/rollout_buffer.h"
#include "rl/nets/fused_mlp.h"
#include "rl/nets/networks.h"

namespace rlzoo {

class PpoFusedUpdate {
 public:
  // The policy must outlive the update.
  explicit PpoFusedUpdate(const ActorCritic& policy) : policy_(policy) {}

  // Whether forward() takes `mb`: a Categorical feed-forward policy on its plain chains
  // (ActorCriticImpl::plain_chains()) with plain CPU float32 parameters, one float32 Box
  // observation, the minibatch's columns contiguous CPU tensors of their types.
  bool applies(const RolloutBuffer::Batch& mb) const;

  // The loss and its statistics on `mb`, as ppo_loss() gives them (the loss a scalar tensor
  // outside any graph), keeping what backward() needs; `mb` must live until then.
  PpoLoss forward(const RolloutBuffer::Batch& mb, const PpoConfig& cfg, double clip);
  // The gradients of the last forward()'s loss, accumulated into the policy's parameters.
  void backward(const PpoConfig& cfg);

 private:
  const ActorCritic& policy_;
  const FusedMlp* pi_ = nullptr;
  const FusedMlp* vf_ = nullptr;
  FusedMlp::Tape pi_tape_, vf_tape_;
  PpoCategoricalRows rows_{};
  std::vector<float> log_probs_, row_grads_, d_logits_, d_values_;
};

}  // namespace rlzoo
