#include "rl/buffers/replay_rounds.h"

#include <fmt/format.h>

#include "rl/training_monitor.h"
#include "core/common/error.h"
#include "core/runtime/trajectory.h"

namespace rlzoo {

StoredRound store_round(ReplayBuffer& buffer, const Trajectory& round, std::int64_t end, std::int64_t& num_timesteps,
                        const std::string& who, const std::function<bool(const StepEpisodes&)>& after_step) {
  if (round.num_envs() != buffer.n_envs())
    throw UserError(fmt::format("{}: a round of {} envs for a replay buffer of {} envs", who, round.num_envs(),
                                buffer.n_envs()));
  StoredRound out;
  for (std::int64_t t = 0; t < round.num_steps() && num_timesteps < end && !out.stopped; ++t) {
    ++out.collected;
    const StepEpisodes episodes{round.terminated_at(t), round.truncated_at(t), round.episode_returns_at(t),
                                round.episode_lengths_at(t)};
    buffer.add(round.obs_at(t), round.actions_at(t), round.rewards_at(t), episodes.terminated, episodes.truncated,
               round.next_obs_at(t), round.final_obs_at(t));
    num_timesteps += buffer.n_envs();
    if (!after_step(episodes)) out.stopped = true;
  }
  return out;
}

}  // namespace rlzoo
