// Slicing a dataset: which episodes --first-steps/--first-episodes/--last-episodes keep, and
// the new dataset holds exactly those episodes' bytes, in order, with the input's spaces.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "datasets/dataset_reader.h"
#include "datasets/dataset_writer.h"
#include "datasets/slice.h"
#include "core/common/rng.h"
#include "tests/datasets/episode_fixtures.h"
#include "tests/support/test_paths.h"

namespace rlzoo::data {
namespace {

using ::testing::HasSubstr;
namespace fs = std::filesystem;
using Range = std::pair<std::int64_t, std::int64_t>;

const std::vector<std::int64_t> kLengths = {3, 5, 2, 7, 4, 6};

// Episodes of kLengths steps with bytes drawn from a seeded Rng, written with small chunks.
std::vector<EpisodeData> write_input(const fs::path& dir, const Space& obs, const Space& act) {
  std::vector<EpisodeData> episodes;
  WriterOptions options;
  options.chunk_bytes = 200;  // a few episodes per chunk
  DatasetWriter w(dir, "Test-v0", obs, act, {{"made_by", "slice_test"}}, options);
  for (std::size_t k = 0; k < kLengths.size(); ++k) {
    EpisodeData e = fixtures::make_episode(obs, act, kLengths[k], 17 + k);
    w.add(e);
    episodes.push_back(std::move(e));
  }
  w.close();
  return episodes;
}

TEST(Slice, RangesKeepWholeEpisodes) {
  EXPECT_EQ(slice_range(kLengths, SliceBy::first_steps, 10), Range(0, 3));  // 3 + 5 + 2 = 10
  EXPECT_EQ(slice_range(kLengths, SliceBy::first_steps, 9), Range(0, 2));   // the third would pass 9
  EXPECT_EQ(slice_range(kLengths, SliceBy::first_steps, 3), Range(0, 1));
  EXPECT_EQ(slice_range(kLengths, SliceBy::first_steps, 27), Range(0, 6));  // all 27 steps
  EXPECT_EQ(slice_range(kLengths, SliceBy::first_steps, 1000), Range(0, 6));
  EXPECT_EQ(slice_range(kLengths, SliceBy::first_episodes, 2), Range(0, 2));
  EXPECT_EQ(slice_range(kLengths, SliceBy::first_episodes, 60), Range(0, 6));
  EXPECT_EQ(slice_range(kLengths, SliceBy::last_episodes, 2), Range(4, 6));
  EXPECT_EQ(slice_range(kLengths, SliceBy::last_episodes, 6), Range(0, 6));
  EXPECT_THAT(test::error_of([] { slice_range(kLengths, SliceBy::first_steps, 2); }),
              HasSubstr("first_steps 2: the first episode alone has 3 steps"));
  EXPECT_THAT(test::error_of([] { slice_range(kLengths, SliceBy::last_episodes, 0); }),
              HasSubstr("last_episodes must be >= 1, got 0"));
  EXPECT_THAT(test::error_of([] { slice_range({}, SliceBy::first_episodes, 1); }), HasSubstr("no episodes"));
}

TEST(Slice, TheSliceHoldsExactlyTheKeptEpisodes) {
  const Space obs = Space::box(-1, 1, {5}, DType::Float64), act = Space::box(-2, 2, {2});
  const fs::path tmp = test::make_temp_dir("rlzoo-slice");
  const auto input = write_input(tmp / "in", obs, act);
  ASSERT_GT(read_manifest(tmp / "in").chunks.size(), 2u);

  struct Case {
    SliceBy by;
    std::int64_t n;
    Range kept;
  };
  int k = 0;
  for (const Case& c : {Case{SliceBy::first_steps, 17, {0, 4}}, Case{SliceBy::first_episodes, 1, {0, 1}},
                        Case{SliceBy::last_episodes, 3, {3, 6}}}) {
    const fs::path out = tmp / ("out" + std::to_string(k++));
    SliceOptions options;
    options.by = c.by;
    options.n = c.n;
    options.source = {{"command", "test"}};
    const DatasetInfo made = slice_dataset(tmp / "in", out, options);
    const DatasetReader reader(out);
    const DatasetInfo& info = reader.info();
    EXPECT_EQ(made.episodes, info.episodes);
    EXPECT_EQ(info.env, "Test-v0");
    EXPECT_EQ(info.observation_space, obs);
    EXPECT_EQ(info.action_space, act);
    EXPECT_EQ(info.source["command"], "test");
    EXPECT_EQ(info.source["slice"]["by"], slice_by_name(c.by));
    EXPECT_EQ(info.source["slice"]["n"], c.n);
    EXPECT_EQ(info.source["slice"]["first_episode"], c.kept.first);
    EXPECT_EQ(info.source["sliced_from"]["episodes"], 6);
    EXPECT_EQ(info.source["sliced_from"]["source"]["made_by"], "slice_test");
    const auto back = reader.read_all();
    ASSERT_EQ(static_cast<std::int64_t>(back.size()), c.kept.second - c.kept.first);
    std::int64_t steps = 0;
    for (std::size_t i = 0; i < back.size(); ++i) {
      const EpisodeData& want = input[static_cast<std::size_t>(c.kept.first) + i];
      EXPECT_EQ(back[i].observations, want.observations);
      EXPECT_EQ(back[i].actions, want.actions);
      EXPECT_EQ(back[i].rewards, want.rewards);
      EXPECT_EQ(back[i].final_observation, want.final_observation);
      EXPECT_EQ(back[i].terminated, want.terminated);
      EXPECT_EQ(back[i].truncated, want.truncated);
      steps += want.length();
    }
    EXPECT_EQ(info.steps, steps);
  }

  SliceOptions options;
  options.n = 2;
  EXPECT_THAT(test::error_of([&] { slice_dataset(tmp / "in", tmp / "in", options); }),
              HasSubstr("is the input; write the slice elsewhere"));
  EXPECT_THAT(test::error_of([&] { slice_dataset(tmp / "in", tmp / "out0", options); }),
              HasSubstr("the directory is not empty"));
  options.writer.overwrite = true;
  EXPECT_EQ(slice_dataset(tmp / "in", tmp / "out0", options).episodes, 2);
  options.by = SliceBy::first_steps;
  EXPECT_THAT(test::error_of([&] { slice_dataset(tmp / "in", tmp / "none", options); }),
              HasSubstr("nothing would be kept"));
  EXPECT_FALSE(fs::exists(tmp / "none"));  // checked before the output is made
}

}  // namespace
}  // namespace rlzoo::data
