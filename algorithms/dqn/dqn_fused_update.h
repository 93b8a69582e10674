// DQN's gradient step (dqn_loss.h's arithmetic) as plain passes over memory the class keeps
// from step to step, as TD3's and SAC's (algorithms/td3/td3_fused_update.h): the target
// network (and for double Q the online one) on the next observations without gradients, the
// online network on the observations with its layer outputs kept, the TD loss's slopes at the
// taken actions, and the backward pass into the online network's parameters' gradients. It
// skips what the LibTorch step spends on a dozen tensors and two autograd nodes per step
// (`rlzoo bench learner`, docs/performance.md). Its products and loops are the fused path's
// own, in the same order, so the gradients are the LibTorch step's bit for bit
// (tests/algorithms/dqn_fused_update_test.cpp).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "algorithms/dqn/dqn_loss.h"
#include "rl/buffers/replay_buffer.h"
#include "rl/nets/fused_mlp.h"
#include "rl/nets/networks.h"

namespace rlzoo {

class DqnFusedUpdate {
 public:
  // A replay sample as raw rows: obs and next_obs float32 [rows, obs_dim], actions int64 [rows]
  // (the taken action of row i is actions[i] - action_offset), the rest float32 [rows].
  struct Batch {
    const float* obs = nullptr;
    const float* next_obs = nullptr;
    const std::int64_t* actions = nullptr;
    std::int64_t action_offset = 0;
    const float* rewards = nullptr;
    const float* discounts = nullptr;
    const float* terminated = nullptr;
    std::int64_t rows = 0;
  };
  // The rows of a ReplayBuffer sample of one float32 Box observation; they point into `sample`
  // (and into `obs`, `next_obs`, which hold the decoded observations), which the caller keeps.
  static Batch rows_of(const ReplaySample& sample, const Space& observation_space, std::int64_t action_offset,
                       torch::Tensor& obs, torch::Tensor& next_obs);

  // Null unless both networks have plain chains (QNetworkImpl::plain_chain()). The networks
  // must outlive the update.
  static std::unique_ptr<DqnFusedUpdate> make(const QNetwork& q, const QNetwork& target);

  // Whether every parameter (and gradient) is a contiguous float32 CPU tensor (not after a
  // move to a device).
  bool applies() const;

  // The TD loss of `batch` against rewards + discounts (1 - terminated) V(next) from the target
  // network (double Q: at the online network's best next action); its gradients accumulate
  // into the online network's parameters.
  DqnLossValue gradients(const Batch& batch, bool double_q, bool huber);

 private:
  DqnFusedUpdate(const FusedMlp& q, const FusedMlp& target) : q_(q), target_(target) {}

  const FusedMlp &q_, &target_;
  FusedMlp::Tape tape_;
  std::vector<float> next_q_, online_next_q_, targets_, slope_, dq_, scratch_;
};

}  // namespace rlzoo
