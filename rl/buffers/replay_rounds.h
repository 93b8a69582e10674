// A runtime round (a Trajectory of train_freq vector steps) into a replay buffer, step by step,
// as every replay-based learner takes it (DQN, SAC, TD3, DDPG): each step stored, counted in
// env steps up to the learner's target, and reported (the algorithm's per-step hook: its
// monitor and callbacks, DQN's target clock), stopping where the hook says stop.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "rl/buffers/replay_buffer.h"

namespace rlzoo {

struct StepEpisodes;
struct Trajectory;

struct StoredRound {
  std::int64_t collected = 0;  // vector steps stored
  bool stopped = false;        // the hook asked to stop
};

// Stores `round`'s steps while num_timesteps < end, adding n_envs to num_timesteps per step,
// then calls after_step(episodes); false stops after that step. A UserError names `who` when
// the round's env count is not the buffer's.
StoredRound store_round(ReplayBuffer& buffer, const Trajectory& round, std::int64_t end, std::int64_t& num_timesteps,
                        const std::string& who, const std::function<bool(const StepEpisodes&)>& after_step);

}  // namespace rlzoo
