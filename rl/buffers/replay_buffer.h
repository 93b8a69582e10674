// Off-policy replay for N parallel envs that stores each observation once.
//
// Layout: slots() time slots x n_envs(), all in contiguous memory. Slot t of env e holds the
// observation that env saw at step t (raw bytes in the space's layout, core/spaces/space.h),
// the action taken, the reward and the terminated/truncated flags of that step. The next
// observation of (t, e) is found by index: it is the observation in slot t+1 of the same env.
// Where the episode ended at t, slot t+1 holds the first observation of the next episode
// (same-step autoreset, core/vector/vector_env.h), so the true final observation is kept on
// the side, keyed by slot: only those observations are stored twice, and only they allocate.
//
//   ReplayBuffer rb(obs_space, act_space, /*capacity=*/100'000, /*n_envs=*/4);
//   rb.add(obs, actions, venv.rewards(), venv.terminated(), venv.truncated(),
//          venv.observation_bytes(), venv.final_observation_bytes());
//   ReplaySample s = rb.sample(64, /*gamma=*/0.99, /*n_step=*/3);
//   target = s.rewards + s.discounts * (1 - s.terminated) * max_a Q'(s.next_obs, a)
//
// Truncation-aware: a time-out is not terminal. The sample's next observation is then the
// true final observation and `terminated` is 0, so the target bootstraps from it.
//
// add() writes the transition into the slot at the write position and its next observation
// into the slot after it. The slot at the write position therefore never holds a complete
// transition and is never sampled: at most (slots() - 1) * n_envs() transitions are available
// (as Stable-Baselines3's optimize_memory_usage). Not thread-safe.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/checkpoint/reader.h"
#include "core/checkpoint/writer.h"
#include "core/common/bytes.h"
#include "core/spaces/space.h"
#include "core/torch/tensor.h"

namespace rlzoo {

// A batch of (n-step) transitions. B = batch size.
struct ReplaySample {
  torch::Tensor obs;         // [B, byte_size] uint8: raw observations (observation_tensors() decodes)
  torch::Tensor actions;     // [B, *action shape] of the action dtype ([B] int64 for Discrete)
  torch::Tensor rewards;     // [B] float32: sum_{k<m} gamma^k r_{t+k} over the m steps used
  torch::Tensor next_obs;    // [B, byte_size] uint8: the observation after those m steps
  torch::Tensor terminated;  // [B] float32: 1 where the m steps ended in a true terminal state
  torch::Tensor discounts;   // [B] float32: gamma^m, the discount of the bootstrap value
  torch::Tensor indices;     // [B] int64: flat slot indices slot * n_envs + env (for diagnostics)
};

class ReplayBuffer {
 public:
  // capacity: transitions over all envs (SB3's buffer_size); each env gets capacity / n_envs
  // slots. Throws UserError when that is fewer than 2, or for a Dict action space.
  ReplayBuffer(Space observation_space, Space action_space, std::int64_t capacity, std::int64_t n_envs);

  // One vector-env step. Every argument holds n_envs() rows: obs and next_obs/final_obs of
  // observation_space().byte_size() bytes each, actions of action_space().byte_size() bytes.
  //  obs:       the observations the actions were chosen on;
  //  next_obs:  the vector env's observations after the step (a reset observation where an
  //             episode ended);
  //  final_obs: the true last observations; row i is read only where terminated[i] or
  //             truncated[i].
  // When `obs` differs from the next observation the previous add() stored for that env (the
  // caller reset its envs in between), that previous transition is marked truncated, with the
  // stored observation as its final one, so no n-step chain runs across the cut.
  void add(ConstBytes obs, ConstBytes actions, std::span<const double> rewards,
           std::span<const std::uint8_t> terminated, std::span<const std::uint8_t> truncated, ConstBytes next_obs,
           ConstBytes final_obs);

  // `batch` transitions drawn uniformly (with replacement) from the size() available ones,
  // using torch's default CPU generator. With n_step > 1, rewards are summed over up to n_step
  // steps of the same env, stopping after a terminated or truncated step and at the newest
  // data. Throws UserError when the buffer is empty or batch/n_step/gamma are out of range.
  ReplaySample sample(std::int64_t batch, double gamma, std::int64_t n_step = 1) const;
  // The same for given flat indices (slot * n_envs + env), which must be sampleable.
  ReplaySample gather(std::span<const std::int64_t> indices, double gamma, std::int64_t n_step = 1) const;
  // Whether (slot, env) currently holds a complete transition.
  bool sampleable(std::int64_t slot) const;

  // Transitions that can be sampled now.
  std::int64_t size() const { return (full_ ? slots_ - 1 : pos_) * n_envs_; }
  // Transitions the buffer holds when full: slots() * n_envs() (one slot per env is the
  // write position, so size() stays below this by n_envs()).
  std::int64_t capacity() const { return slots_ * n_envs_; }
  std::int64_t slots() const { return slots_; }
  std::int64_t n_envs() const { return n_envs_; }
  std::int64_t pos() const { return pos_; }
  bool full() const { return full_; }
  // Vector-env steps added since construction (or as restored by load()).
  std::int64_t steps_added() const { return steps_added_; }
  // Final observations kept on the side (episode ends among the stored transitions).
  std::size_t num_final_observations() const { return final_obs_.size(); }
  const Space& observation_space() const { return obs_space_; }
  const Space& action_space() const { return act_space_; }

  // Stores every content, the write position and the flags as one blob `name`, so that a
  // buffer loaded from it continues bit for bit (samples and later adds alike).
  void save(CheckpointWriter& writer, const std::string& name) const;
  // Restores a blob written by save(). Throws UserError naming the blob when it does not match
  // this buffer's spaces, slots or env count; the buffer is then unchanged.
  void load(const CheckpointReader& reader, const std::string& name);

 private:
  std::int64_t key(std::int64_t slot, std::int64_t env) const { return slot * n_envs_ + env; }
  const std::byte* obs_row(std::int64_t slot, std::int64_t env) const;
  std::byte* obs_row(std::int64_t slot, std::int64_t env);
  const std::byte* next_obs_row(std::int64_t slot, std::int64_t env) const;
  void keep_final(std::int64_t slot, std::int64_t env, const std::byte* row);
  std::int64_t rows_written() const;

  Space obs_space_, act_space_;
  std::size_t obs_bytes_, act_bytes_;
  std::int64_t slots_, n_envs_;
  std::int64_t pos_ = 0;
  bool full_ = false;
  std::int64_t steps_added_ = 0;
  torch::Tensor obs_;         // [slots, n_envs, obs_bytes] uint8
  torch::Tensor actions_;     // [slots, n_envs, act_bytes] uint8
  torch::Tensor rewards_;     // [slots, n_envs] float64
  torch::Tensor terminated_;  // [slots, n_envs] uint8
  torch::Tensor truncated_;   // [slots, n_envs] uint8
  // Raw pointers into the tensors above (the hot path uses no tensor ops).
  std::byte *obs_p_, *act_p_;
  double* rew_p_;
  std::uint8_t *term_p_, *trunc_p_;
  // Final observations of the stored episode ends, keyed by slot * n_envs + env.
  std::unordered_map<std::int64_t, std::vector<std::byte>> final_obs_;
};

}  // namespace rlzoo
