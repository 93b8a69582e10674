#include "core/runtime/actor_loop.h"

#include <cstring>
#include <vector>

namespace rlzoo {

TrajectoryShape actor_trajectory_shape(const VectorEnv& envs, const ActorPolicy& policy, std::int64_t num_steps) {
  TrajectoryShape shape;
  shape.num_steps = num_steps;
  shape.num_envs = envs.num_envs();
  shape.obs_bytes = envs.single_observation_space().byte_size();
  shape.action_bytes = envs.single_action_space().byte_size();
  shape.num_extras = policy.num_extras();
  shape.mask_size = envs.action_masks().size() / static_cast<std::size_t>(envs.num_envs());
  return shape;
}

bool fill_trajectory(VectorEnv& envs, ActorPolicy& policy, Trajectory& traj, ActorStreamState& stream,
                     const StopSource& stop) {
  const TrajectoryShape& shape = traj.shape;
  const auto M = static_cast<std::size_t>(shape.num_envs);
  const std::size_t obs_rows = M * shape.obs_bytes, act_rows = M * shape.action_bytes;
  const std::size_t extra_rows = M * shape.num_extras, mask_rows = M * shape.mask_size;
  // Every row starts an episode as far as the policy knows: its state is fresh.
  if (stream.episode_starts.size() != M) stream.episode_starts.assign(M, 1);
  std::vector<std::uint8_t>& starts = stream.episode_starts;
  for (std::int64_t t = 0; t < shape.num_steps; ++t, ++stream.step) {
    if (stop.stop_requested()) return false;
    const auto ti = static_cast<std::size_t>(t);
    std::byte* obs = traj.obs.data() + ti * obs_rows;
    std::byte* act = traj.actions.data() + ti * act_rows;
    std::uint8_t* mask = traj.masks.data() + ti * mask_rows;
    std::memcpy(obs, envs.observation_bytes().data(), obs_rows);
    if (mask_rows) std::memcpy(mask, envs.action_masks().data(), mask_rows);
    ActBatch batch;
    batch.obs = ConstBytes(obs, obs_rows);
    batch.masks = std::span<const std::uint8_t>(mask, mask_rows);
    batch.rows = shape.num_envs;
    batch.first_env = traj.env_offset;
    batch.step = stream.step;
    batch.episode_starts = starts;
    batch.actions = Bytes(act, act_rows);
    batch.extras = std::span<float>(traj.extras.data() + ti * extra_rows, extra_rows);
    if (!policy.act(batch)) return false;
    envs.step(ConstBytes(act, act_rows));
    const std::size_t base = ti * M;
    std::memcpy(traj.rewards.data() + base, envs.rewards().data(), M * sizeof(double));
    std::memcpy(traj.terminated.data() + base, envs.terminated().data(), M);
    std::memcpy(traj.truncated.data() + base, envs.truncated().data(), M);
    for (std::size_t e = 0; e < M; ++e) {
      starts[e] = static_cast<std::uint8_t>(envs.terminated()[e] | envs.truncated()[e]);
      if (!starts[e]) continue;
      std::memcpy(traj.final_obs.data() + (base + e) * shape.obs_bytes,
                  envs.final_observation_bytes().data() + e * shape.obs_bytes, shape.obs_bytes);
      traj.episode_returns[base + e] = envs.episode_returns()[e];
      traj.episode_lengths[base + e] = envs.episode_lengths()[e];
    }
  }
  std::memcpy(traj.next_obs.data(), envs.observation_bytes().data(), obs_rows);
  if (mask_rows) std::memcpy(traj.next_masks.data(), envs.action_masks().data(), mask_rows);
  return true;
}

std::int64_t run_actor_loop(VectorEnv& envs, ActorPolicy& policy, TrajectorySink& sink,
                            const ActorLoopOptions& options, const StopSource& stop) {
  RLZOO_CHECK(options.steps_per_trajectory >= 1, "steps_per_trajectory must be >= 1");
  if (options.reset_seed) envs.reset(*options.reset_seed + static_cast<std::uint64_t>(options.env_offset));
  const TrajectoryShape shape = actor_trajectory_shape(envs, policy, options.steps_per_trajectory);
  ActorStreamState stream;
  stream.step = static_cast<std::int64_t>(options.first_sequence) * options.steps_per_trajectory;
  std::int64_t sent = 0;
  for (std::uint64_t seq = options.first_sequence;
       options.max_trajectories < 0 || sent < options.max_trajectories; ++seq) {
    if (stop.stop_requested()) break;
    Trajectory traj = sink.make(shape);
    traj.actor = options.actor;
    traj.sequence = seq;
    traj.env_offset = options.env_offset;
    traj.policy_version = policy.begin_trajectory(seq, stop);
    if (stop.stop_requested()) break;
    if (!fill_trajectory(envs, policy, traj, stream, stop)) return sent;
    if (!sink.push(std::move(traj))) break;
    ++sent;
  }
  return sent;
}

}  // namespace rlzoo
