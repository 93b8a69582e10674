// PPO's rollout step recording, minibatch loss (clipped surrogate, optionally clipped value
// loss, entropy bonus), schedules, epochs and the statistics PPO logs per update, shared by
// every agent that runs PPO (ppo, the SeCBAD family).
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "core/torch/tensor.h"
#include "rl/buffers/rollout_buffer.h"
#include "rl/nets/networks.h"
#include "algorithms/ppo/ppo_config.h"

namespace rlzoo {

class PpoFusedUpdate;  // algorithms/ppo/ppo_fused_update.h

class Logger;
class RewardNormalizer;

// What PPO stores for one vector-env step: the rewards (normalised when `norm` is given, which
// updates its statistics) and the done flags. Time-outs (truncated, not terminated) are not
// terminal: their reward gets gamma x V(final observation) added (SB3's bootstrap), the values
// coming from `final_values(rows)` for those rows ([k] int64) of the step.
struct StepRewards {
  torch::Tensor rewards, dones;  // [n] float32
};
StepRewards ppo_step_rewards(std::span<const double> rewards, std::span<const std::uint8_t> terminated,
                             std::span<const std::uint8_t> truncated, RewardNormalizer* norm, double gamma,
                             const std::function<torch::Tensor(const torch::Tensor& rows)>& final_values);
// The same into float32 arrays of n, without a tensor (but for the normaliser and time-outs).
void ppo_step_rewards_into(std::span<const double> rewards, std::span<const std::uint8_t> terminated,
                           std::span<const std::uint8_t> truncated, RewardNormalizer* norm, double gamma,
                           const std::function<torch::Tensor(const torch::Tensor& rows)>& final_values,
                           float* scaled_rewards, float* dones);

// One vector-env step of a PPO rollout into `buffer`: the rewards and done flags as
// ppo_step_rewards() makes them, with what the policy gave for the step (obs as it saw them;
// masks and episode_starts undefined where unused). The one way every PPO learner (ppo, the
// SeCBAD family) records a step.
void add_ppo_step(RolloutBuffer& buffer, const std::vector<torch::Tensor>& obs, const torch::Tensor& actions,
                  const torch::Tensor& values, const torch::Tensor& log_probs, const torch::Tensor& masks,
                  const torch::Tensor& episode_starts, std::span<const double> rewards,
                  std::span<const std::uint8_t> terminated, std::span<const std::uint8_t> truncated,
                  RewardNormalizer* norm, double gamma,
                  const std::function<torch::Tensor(const torch::Tensor& rows)>& final_values);

struct PpoLoss {
  torch::Tensor loss;  // the one to differentiate
  double pg_loss = 0, value_loss = 0, entropy_loss = 0, approx_kl = 0, clip_fraction = 0;
};

// The loss of one minibatch given the current policy's distribution and values on it. On CPU
// float32 tensors it is computed as one fused autograd node (ppo_fused_loss.h), elsewhere with
// LibTorch's operations; both give the same loss.
PpoLoss ppo_loss(const ActionDistribution& dist, const torch::Tensor& values, const RolloutBuffer::Batch& mb,
                 const PpoConfig& cfg, double clip);

// Means over an update's minibatches, recorded as SB3's train/* keys.
struct PpoUpdateStats {
  std::vector<double> pg_losses, value_losses, entropy_losses, clip_fractions, approx_kls;
  double last_loss = 0;
  // The ratio diagnostics of every minibatch looked at (also one the target-KL check stops at).
  void add_ratio_stats(const PpoLoss& l) {
    approx_kls.push_back(l.approx_kl);
    clip_fractions.push_back(l.clip_fraction);
  }
  // The losses of a minibatch that was stepped on.
  void add_losses(const PpoLoss& l);
  void record(Logger& log, const RolloutBuffer& buffer, double lr, double clip) const;
};

// The learning rate and clip range of the next update, with the optimiser's (Adam's) learning
// rate set to it: a `linear` schedule scales the value by the progress remaining,
// max(0, 1 - num_timesteps / n_timesteps), as SB3's; `constant` keeps it.
struct PpoSchedule {
  double learning_rate = 0, clip_range = 0;
};
PpoSchedule apply_ppo_schedule(const PpoConfig& cfg, torch::optim::Optimizer& optimizer, std::int64_t num_timesteps,
                               std::int64_t n_timesteps);

// PPO's update: n_epochs passes over fresh `minibatches()`, each minibatch scored by
// `evaluate` (the policy's distribution and values on it), stopped early by target_kl; before
// each optimiser step `before_step` may touch the gradients (a distributed reducer), then the
// global norm of `parameters` is clipped. Counts the optimiser steps in `n_updates`. A
// non-finite gradient stops before its step with TrainingDiverged naming `num_timesteps`
// (rl/gradient_guard.h). With `plain` (not null), minibatches it applies to take its plain
// passes instead of `evaluate` and autograd: the same steps bit for bit.
PpoUpdateStats run_ppo_epochs(
    const PpoConfig& cfg, double clip, torch::optim::Optimizer& optimizer, const std::vector<torch::Tensor>& parameters,
    const std::function<std::vector<RolloutBuffer::Batch>()>& minibatches,
    const std::function<std::pair<ActionDistribution, torch::Tensor>(const RolloutBuffer::Batch&)>& evaluate,
    const std::function<void()>& before_step, std::int64_t& n_updates, std::int64_t num_timesteps,
    PpoFusedUpdate* plain = nullptr);

}  // namespace rlzoo
