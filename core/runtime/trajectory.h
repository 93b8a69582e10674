// A trajectory: `num_steps` consecutive vector-env steps of `num_envs` envs, as an actor sends
// it to a learner. Arrays are time-major ([T, M, ...]) and contiguous, so a learner copies a
// step's rows for all envs at once.
//
// Autoreset is same-step (core/vector/vector_env.h): obs row (t, e) is the observation the
// action (t, e) was chosen on; where terminated or truncated (t, e), final_obs row (t, e) is the
// true last observation of that episode and episode_return/length (t, e) its statistics, and
// obs row (t+1, e) is the first observation of the next episode. next_obs holds the
// observations after the last step (the bootstrap states).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "core/common/bytes.h"

namespace rlzoo {

struct TrajectoryShape {
  std::int64_t num_steps = 0;   // T
  std::int64_t num_envs = 0;    // M
  std::size_t obs_bytes = 0;    // one observation in the space's byte layout
  std::size_t action_bytes = 0;
  std::size_t num_extras = 0;   // floats per step the policy adds (log-prob, value, ...)
  std::size_t mask_size = 0;    // legal-action mask entries per step (0: the env has none)
  bool operator==(const TrajectoryShape&) const = default;
};

struct Trajectory {
  int actor = 0;                     // which actor made it
  std::uint64_t sequence = 0;        // the actor's count: 0, 1, 2, ...
  std::int64_t env_offset = 0;       // global index of env 0 of this trajectory
  std::uint64_t policy_version = 0;  // parameter version the actor acted with
  TrajectoryShape shape;

  std::vector<std::byte> obs;                // [T, M, obs_bytes]
  std::vector<std::byte> actions;            // [T, M, action_bytes]
  std::vector<float> extras;                 // [T, M, num_extras]
  std::vector<std::uint8_t> masks;           // [T, M, mask_size]
  std::vector<double> rewards;               // [T, M]
  std::vector<std::uint8_t> terminated;      // [T, M]
  std::vector<std::uint8_t> truncated;       // [T, M]
  std::vector<std::byte> final_obs;          // [T, M, obs_bytes], meaningful where done
  std::vector<double> episode_returns;       // [T, M], meaningful where done
  std::vector<std::int64_t> episode_lengths; // [T, M], meaningful where done
  std::vector<std::byte> next_obs;           // [M, obs_bytes]
  std::vector<std::uint8_t> next_masks;      // [M, mask_size]

  Trajectory() = default;
  explicit Trajectory(const TrajectoryShape& shape) { resize(shape); }
  void resize(const TrajectoryShape& shape);

  std::int64_t num_steps() const { return shape.num_steps; }
  std::int64_t num_envs() const { return shape.num_envs; }
  // The rows of all M envs at step t.
  ConstBytes obs_at(std::int64_t t) const { return step_rows(obs, t, shape.obs_bytes); }
  ConstBytes actions_at(std::int64_t t) const { return step_rows(actions, t, shape.action_bytes); }
  ConstBytes final_obs_at(std::int64_t t) const { return step_rows(final_obs, t, shape.obs_bytes); }
  // The observations after step t: obs at t+1, or next_obs after the last step.
  ConstBytes next_obs_at(std::int64_t t) const { return t + 1 < shape.num_steps ? obs_at(t + 1) : ConstBytes(next_obs); }
  std::span<const float> extras_at(std::int64_t t) const { return step_span(extras, t, shape.num_extras); }
  std::span<const std::uint8_t> masks_at(std::int64_t t) const { return step_span(masks, t, shape.mask_size); }
  std::span<const double> rewards_at(std::int64_t t) const { return step_span(rewards, t, 1); }
  std::span<const std::uint8_t> terminated_at(std::int64_t t) const { return step_span(terminated, t, 1); }
  std::span<const std::uint8_t> truncated_at(std::int64_t t) const { return step_span(truncated, t, 1); }
  std::span<const double> episode_returns_at(std::int64_t t) const { return step_span(episode_returns, t, 1); }
  std::span<const std::int64_t> episode_lengths_at(std::int64_t t) const { return step_span(episode_lengths, t, 1); }

 private:
  ConstBytes step_rows(const std::vector<std::byte>& v, std::int64_t t, std::size_t row) const {
    const std::size_t n = static_cast<std::size_t>(shape.num_envs) * row;
    return ConstBytes(v).subspan(static_cast<std::size_t>(t) * n, n);
  }
  template <class T>
  std::span<const T> step_span(const std::vector<T>& v, std::int64_t t, std::size_t per_env) const {
    const std::size_t n = static_cast<std::size_t>(shape.num_envs) * per_env;
    return std::span<const T>(v).subspan(static_cast<std::size_t>(t) * n, n);
  }
};

// One trajectory per part, side by side along the env axis (part k's envs after part k-1's):
// the round of an actor fleet as if one actor had stepped all envs. Parts must have equal
// shapes except num_envs; actor/sequence/env_offset come from part 0, policy_version is the
// oldest of the parts'.
Trajectory merge_envs(const std::vector<Trajectory>& parts);

}  // namespace rlzoo
