#include "core/runtime/inline_source.h"

#include "core/common/error.h"

namespace rlzoo {

InlineTrajectorySource::InlineTrajectorySource(VectorEnv& envs, ActorPolicy& policy, InlineSourceOptions options)
    : envs_(&envs), policy_(&policy), options_(std::move(options)) {
  RLZOO_CHECK(options_.steps_per_round >= 1, "InlineTrajectorySource: steps_per_round must be >= 1");
  stream_.episode_starts = std::move(options_.episode_starts);
}

std::optional<Trajectory> InlineTrajectorySource::next_round() {
  if (stop_.stop_requested()) return std::nullopt;
  const std::int64_t steps = options_.round_steps ? options_.round_steps() : options_.steps_per_round;
  RLZOO_CHECK(steps >= 1 && steps <= options_.steps_per_round,
              "InlineTrajectorySource: a round of 1 to steps_per_round steps");
  Trajectory traj = spare_ ? std::move(*spare_) : Trajectory();
  spare_.reset();
  const TrajectoryShape shape = actor_trajectory_shape(*envs_, *policy_, steps);
  if (!(traj.shape == shape)) traj.resize(shape);
  traj.actor = 0;
  traj.sequence = sequence_;
  traj.env_offset = 0;
  traj.policy_version = policy_->begin_trajectory(sequence_, stop_);
  if (!fill_trajectory(*envs_, *policy_, traj, stream_, stop_)) return std::nullopt;
  ++sequence_;
  return traj;
}

}  // namespace rlzoo
