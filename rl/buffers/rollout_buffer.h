// The on-policy rollout buffer: n_steps x n_envs transitions, GAE(lambda) advantages, and
// shuffled minibatches.
//
// Truncated episodes are bootstrapped by the caller, as Stable-Baselines3 does: when env i is
// truncated (not terminated) at step t, add gamma * V(final observation of i) to its reward
// before add(); `dones` then marks every episode end (terminated or truncated), where the
// advantage recursion stops.
//
// Recurrent policies (ActorCritic with policy.recurrent) also record, per step, whether the
// observation starts an episode, and the policy's state before the rollout's first step
// (set_initial_state); sequence_minibatches() then gives whole n_steps sequences of a subset
// of the envs, so that the update re-runs the RNN from that state with the same resets and
// recomputes exactly what the rollout computed (CleanRL's ppo_atari_lstm).
#pragma once

#include <vector>

#include "core/torch/tensor.h"

namespace rlzoo {

class RolloutBuffer {
 public:
  struct Batch {
    std::vector<torch::Tensor> obs;  // one tensor per observation field, [B, ...]
    torch::Tensor actions, old_values, old_log_probs, advantages, returns;
    torch::Tensor action_masks;      // [B, n] bool, or undefined
    // sequence_minibatches() only: the rows are T steps of E envs, time-major (row t * E + e).
    torch::Tensor episode_starts;    // [T, E] bool
    torch::Tensor initial_state;     // the policy's state of the E envs before step 0
    // The same batch on `device` (the buffer itself always stays on the CPU).
    Batch to(const torch::Device& device) const;
  };

  RolloutBuffer(std::int64_t n_steps, std::int64_t n_envs);

  std::int64_t n_steps() const { return n_steps_; }
  std::int64_t n_envs() const { return n_envs_; }
  bool full() const { return pos_ == n_steps_; }
  void reset() { pos_ = 0; }

  // One vector-env step, copied to the CPU from whatever device the inputs are on. obs: per
  // field [N, ...] (already preprocessed); actions [N] or [N, d] as sampled (unclipped);
  // rewards, dones (0/1), values, log_probs: [N]; episode_starts [N] bool (recurrent
  // policies: the observation starts an episode).
  void add(const std::vector<torch::Tensor>& obs, const torch::Tensor& actions, const torch::Tensor& rewards,
           const torch::Tensor& dones, const torch::Tensor& values, const torch::Tensor& log_probs,
           const torch::Tensor& action_masks = {}, const torch::Tensor& episode_starts = {});
  // N rows of float32 in plain memory, element j of row r at data[r * row_stride + j]: a
  // column block of a trajectory's rows, say.
  struct FloatRows {
    const float* data = nullptr;
    std::int64_t row_stride = 0;
  };
  // add() from plain memory, for a caller that holds a step's rows there (PPO's rounds: on a
  // few envs a tensor per field and step costs more than the copy): one float32 observation
  // field of obs_shape per env, actions of action_shape (stored as int64 when
  // `discrete_actions`: the floats hold whole numbers), rewards and dones [N]; no masks, no
  // episode starts. The storage is what add() makes for such tensors; either may follow the
  // other.
  void add_rows(FloatRows obs, c10::IntArrayRef obs_shape, FloatRows actions, c10::IntArrayRef action_shape,
                bool discrete_actions, const float* rewards, const float* dones, FloatRows values,
                FloatRows log_probs);
  // Recurrent policies: the state of the N envs before this rollout's first step, with the
  // batch at dimension 2 (ActorCritic's layout [S, layers, N, hidden]). Call after reset().
  void set_initial_state(const torch::Tensor& state) { initial_state_ = state.cpu().clone(); }

  // GAE over the full buffer; last_values: V of the observations after the last step [N].
  void compute_returns_and_advantages(const torch::Tensor& last_values, double gamma, double gae_lambda);

  // All n_steps * n_envs samples in a random order (torch's default generator), split into
  // minibatches of batch_size (the last one may be smaller).
  std::vector<Batch> minibatches(std::int64_t batch_size) const;
  // Recurrent policies: the envs in a random order (torch's default generator), split into
  // minibatches of envs_per_batch envs (the last may have fewer), each with the whole rollout
  // of its envs, their initial state and their episode starts.
  std::vector<Batch> sequence_minibatches(std::int64_t envs_per_batch) const;

  const torch::Tensor& advantages() const { return advantages_; }  // [T, N]
  const torch::Tensor& returns() const { return returns_; }        // [T, N]
  const torch::Tensor& values() const { return values_; }          // [T, N]
  const torch::Tensor& rewards() const { return rewards_; }        // [T, N]
  const torch::Tensor& log_probs() const { return log_probs_; }    // [T, N]
  const torch::Tensor& episode_starts() const { return starts_; }  // [T, N] bool, or undefined

 private:
  std::int64_t n_steps_, n_envs_, pos_ = 0;
  std::vector<torch::Tensor> obs_;  // per field [T, N, ...]
  torch::Tensor actions_, rewards_, dones_, values_, log_probs_, advantages_, returns_, masks_;
  torch::Tensor starts_, initial_state_;
};

}  // namespace rlzoo
