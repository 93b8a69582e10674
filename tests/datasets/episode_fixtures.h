// Episodes for the dataset tests: every byte drawn from a seeded Rng (so a round trip checks
// every byte), and the comparison of two episodes field by field.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>

#include "agents/datasets/episode.h"
#include "core/common/rng.h"

namespace rlzoo::data::fixtures {

// `steps` steps of random in-space observations and actions, rewards in [-2, 2], a final
// observation when asked; terminated when seed is even, truncated when it is a multiple of 3.
inline EpisodeData make_episode(const Space& obs, const Space& act, std::int64_t steps, std::uint64_t seed,
                                bool final_observation = true) {
  Rng rng(seed);
  EpisodeData e;
  const auto t = static_cast<std::size_t>(steps);
  e.observations.resize(t * obs.byte_size());
  e.actions.resize(t * act.byte_size());
  for (std::size_t i = 0; i < t; ++i) {
    obs.sample(rng, Bytes(e.observations).subspan(i * obs.byte_size(), obs.byte_size()));
    act.sample(rng, Bytes(e.actions).subspan(i * act.byte_size(), act.byte_size()));
    e.rewards.push_back(static_cast<float>(rng.uniform(-2, 2)));
  }
  if (final_observation) {
    e.final_observation.resize(obs.byte_size());
    obs.sample(rng, e.final_observation);
  }
  e.terminated = seed % 2 == 0;
  e.truncated = seed % 3 == 0;
  return e;
}

inline void expect_same(const EpisodeData& a, const EpisodeData& b, std::int64_t index) {
  EXPECT_EQ(a.observations, b.observations) << "episode " << index;
  EXPECT_EQ(a.actions, b.actions) << "episode " << index;
  EXPECT_EQ(a.rewards, b.rewards) << "episode " << index;
  EXPECT_EQ(a.final_observation, b.final_observation) << "episode " << index;
  EXPECT_EQ(a.terminated, b.terminated) << "episode " << index;
  EXPECT_EQ(a.truncated, b.truncated) << "episode " << index;
}

}  // namespace rlzoo::data::fixtures
