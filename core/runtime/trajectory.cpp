#include "core/runtime/trajectory.h"

#include <algorithm>
#include <cstring>

#include "core/common/error.h"

namespace rlzoo {

void Trajectory::resize(const TrajectoryShape& s) {
  shape = s;
  const auto steps = static_cast<std::size_t>(s.num_steps * s.num_envs);
  const auto envs = static_cast<std::size_t>(s.num_envs);
  obs.resize(steps * s.obs_bytes);
  actions.resize(steps * s.action_bytes);
  extras.resize(steps * s.num_extras);
  masks.resize(steps * s.mask_size);
  rewards.resize(steps);
  terminated.resize(steps);
  truncated.resize(steps);
  final_obs.resize(steps * s.obs_bytes);
  episode_returns.resize(steps);
  episode_lengths.resize(steps);
  next_obs.resize(envs * s.obs_bytes);
  next_masks.resize(envs * s.mask_size);
}

namespace {
// Copies each part's [T, M_k, row] block into the merged [T, sum M, row] array.
template <class T, class Get>
void interleave(std::vector<T>& out, const std::vector<Trajectory>& parts, std::int64_t steps, std::size_t per_env,
                Get get) {
  std::size_t total_envs = 0;
  for (const auto& p : parts) total_envs += static_cast<std::size_t>(p.shape.num_envs);
  std::size_t env_begin = 0;
  for (const auto& p : parts) {
    const std::vector<T>& src = get(p);
    const std::size_t block = static_cast<std::size_t>(p.shape.num_envs) * per_env;
    for (std::int64_t t = 0; t < steps; ++t) {
      const auto ti = static_cast<std::size_t>(t);
      std::copy_n(src.data() + ti * block, block, out.data() + (ti * total_envs + env_begin) * per_env);
    }
    env_begin += static_cast<std::size_t>(p.shape.num_envs);
  }
}
}  // namespace

Trajectory merge_envs(const std::vector<Trajectory>& parts) {
  RLZOO_CHECK(!parts.empty(), "merge_envs of no trajectories");
  if (parts.size() == 1) return parts[0];
  TrajectoryShape shape = parts[0].shape;
  shape.num_envs = 0;
  for (const auto& p : parts) {
    TrajectoryShape s = p.shape;
    s.num_envs = 0;
    TrajectoryShape expected = shape;
    expected.num_envs = 0;
    RLZOO_CHECK(s == expected, "merge_envs: trajectories of different shapes");
    shape.num_envs += p.shape.num_envs;
  }
  Trajectory out(shape);
  out.actor = parts[0].actor;
  out.sequence = parts[0].sequence;
  out.env_offset = parts[0].env_offset;
  out.policy_version = parts[0].policy_version;
  for (const auto& p : parts) out.policy_version = std::min(out.policy_version, p.policy_version);
  const std::int64_t T = shape.num_steps;
  interleave(out.obs, parts, T, shape.obs_bytes, [](const Trajectory& p) -> const auto& { return p.obs; });
  interleave(out.actions, parts, T, shape.action_bytes, [](const Trajectory& p) -> const auto& { return p.actions; });
  interleave(out.extras, parts, T, shape.num_extras, [](const Trajectory& p) -> const auto& { return p.extras; });
  interleave(out.masks, parts, T, shape.mask_size, [](const Trajectory& p) -> const auto& { return p.masks; });
  interleave(out.rewards, parts, T, 1, [](const Trajectory& p) -> const auto& { return p.rewards; });
  interleave(out.terminated, parts, T, 1, [](const Trajectory& p) -> const auto& { return p.terminated; });
  interleave(out.truncated, parts, T, 1, [](const Trajectory& p) -> const auto& { return p.truncated; });
  interleave(out.final_obs, parts, T, shape.obs_bytes, [](const Trajectory& p) -> const auto& { return p.final_obs; });
  interleave(out.episode_returns, parts, T, 1, [](const Trajectory& p) -> const auto& { return p.episode_returns; });
  interleave(out.episode_lengths, parts, T, 1, [](const Trajectory& p) -> const auto& { return p.episode_lengths; });
  interleave(out.next_obs, parts, 1, shape.obs_bytes, [](const Trajectory& p) -> const auto& { return p.next_obs; });
  interleave(out.next_masks, parts, 1, shape.mask_size, [](const Trajectory& p) -> const auto& { return p.next_masks; });
  return out;
}

}  // namespace rlzoo
