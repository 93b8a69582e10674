// One recorded episode in memory, as rlzoo datasets store it (docs/datasets.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/spaces/space.h"

namespace rlzoo::data {

// T steps of one episode. observations and actions hold T elements each in their space's
// memory layout (core/spaces/space.h): element t of observations is o_t, the observation in
// which a_t was taken; r_t followed a_t. final_observation is o_T (the observation after the
// last step) or empty when unknown. terminated/truncated as in Gymnasium; both false when the
// data stopped mid-episode.
struct EpisodeData {
  std::vector<std::byte> observations, actions, final_observation;
  std::vector<float> rewards;
  bool terminated = false, truncated = false;

  std::int64_t length() const { return static_cast<std::int64_t>(rewards.size()); }
  // Sum of the rewards in double precision.
  double episode_return() const;
};

// Throws UserError "<context>: field '<name>': ..." when the episode has no steps or a
// field's size does not fit the spaces (T elements, final_observation empty or one element).
void check_episode(const EpisodeData& episode, const Space& observation_space, const Space& action_space,
                   const std::string& context);

// A chunk record's payload: the episode as a serialized rlzoo.data.Episode (proto/episode.proto).
std::string encode_episode(const EpisodeData& episode);
// The inverse; throws UserError "<context>: ..." when the payload is not an Episode. Sizes are
// not checked here (check_episode does that against the spaces).
EpisodeData decode_episode(std::string_view payload, const std::string& context);

}  // namespace rlzoo::data
