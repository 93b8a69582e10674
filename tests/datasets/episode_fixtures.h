// Episodes for the dataset tests: every byte drawn from a seeded Rng (so a round trip checks
// every byte), and the comparison of two episodes field by field.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "datasets/dataset_writer.h"
#include "datasets/episode.h"
#include "core/common/rng.h"
#include "tests/support/test_paths.h"

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


// A dataset of `episodes` episodes of 1 + (7i mod 13) steps in `dir`; returns what was written.
inline std::vector<EpisodeData> write_dataset(const std::filesystem::path& dir, const Space& obs, const Space& act,
                                              int episodes, WriterOptions options = {}, std::uint64_t seed0 = 0) {
  std::vector<EpisodeData> written;
  DatasetWriter w(dir, "Test-v0", obs, act, {{"made_by", "dataset_test"}}, options);
  for (int i = 0; i < episodes; ++i) {
    written.push_back(make_episode(obs, act, 1 + (i * 7) % 13, seed0 + static_cast<std::uint64_t>(i)));
    w.add(written.back());
  }
  w.close();
  return written;
}

// A path in a fresh temporary directory.
inline std::filesystem::path fresh(const std::string& name) {
  return std::filesystem::path(test::make_temp_dir("rlzoo-dataset")) / name;
}

}  // namespace rlzoo::data::fixtures
