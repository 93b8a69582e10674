// An rlzoo dataset (datasets) as the sequence models' episodes: float states, actions in
// the model's form (continuous ones mapped from the env's bounds to [-1, 1], discrete ones as
// indices from 0), float rewards.
#pragma once

#include <string>
#include <vector>

#include "algorithms/dt/offline_data.h"
#include "core/env/env.h"

namespace rlzoo::dt {

// Reads the manifest of the dataset in `dir` and checks that it fits the env (as below), without
// reading any episode: for failing early, before a run directory is made.
void check_offline_dataset(const std::string& dir, const EnvSpec& spec);

// Reads every episode of the dataset in `dir`. Its spaces must have the env's shapes (and, for
// Discrete actions, the same number of actions): a UserError names the dataset and the mismatch.
std::vector<OfflineEpisode> read_offline_episodes(const std::string& dir, const EnvSpec& spec);

}  // namespace rlzoo::dt
