// Bad data and bad use of the dataset format: episode sizes that do not fit the spaces, corrupt
// or truncated chunk files and broken manifests, each reported with the file and byte offset.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "datasets/chunk_file.h"
#include "datasets/dataset_reader.h"
#include "datasets/dataset_writer.h"
#include "core/checkpoint/durable_io.h"
#include "core/spaces/space_json.h"
#include "tests/datasets/episode_fixtures.h"
#include "tests/support/test_paths.h"

namespace rlzoo::data {
namespace {

using ::testing::HasSubstr;
namespace fs = std::filesystem;
using json = nlohmann::json;
using fixtures::fresh;
using fixtures::make_episode;
using fixtures::write_dataset;

TEST(Dataset, BadEpisodeSizesNameTheEpisodeAndField) {
  const Space obs = Space::box(-1, 1, {3}), act = Space::discrete(2);
  const fs::path dir = fresh("d");
  DatasetWriter w(dir, "", obs, act, nullptr);
  w.add(make_episode(obs, act, 4, 1));
  EpisodeData bad = make_episode(obs, act, 4, 2);
  bad.observations.resize(bad.observations.size() - 4);
  EXPECT_EQ(test::error_of([&] { w.add(bad); }),
            "episode 1: field 'observations' has 44 bytes; 4 steps of Box(-1, 1, (3,), float32) (12 bytes each) need 48");
  bad = make_episode(obs, act, 4, 2);
  bad.actions.push_back(std::byte{0});
  EXPECT_THAT(test::error_of([&] { w.add(bad); }), HasSubstr("episode 1: field 'actions' has 33 bytes"));
  bad = make_episode(obs, act, 4, 2);
  bad.final_observation.resize(8);
  EXPECT_THAT(test::error_of([&] { w.add(bad); }), HasSubstr("episode 1: field 'final_observation' has 8 bytes"));
  bad = make_episode(obs, act, 4, 2);
  bad.rewards[2] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_THAT(test::error_of([&] { w.add(bad); }), HasSubstr("episode 1: field 'rewards': the reward of step 2 is nan"));
  EXPECT_THAT(test::error_of([&] { w.add(EpisodeData{}); }), HasSubstr("episode 1: field 'rewards' is empty"));
  w.add(make_episode(obs, act, 2, 3));  // the rejected episodes left nothing behind
  w.close();
  EXPECT_EQ(DatasetReader(dir).info().lengths, (std::vector<std::int64_t>{4, 2}));
}

// Flips one byte of a file.
void flip_byte(const fs::path& file, std::uint64_t offset) {
  std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
  f.seekg(static_cast<std::streamoff>(offset));
  char c;
  f.get(c);
  f.seekp(static_cast<std::streamoff>(offset));
  f.put(static_cast<char>(c ^ 0x40));
}

std::string read_error(const fs::path& dir) {
  return test::error_of([&] { DatasetReader(dir).for_each([](std::int64_t, EpisodeData&&) {}); });
}

TEST(Dataset, CorruptChunksNameFileAndOffset) {
  const Space obs = Space::box(-1, 1, {4}), act = Space::discrete(2);
  const fs::path dir = fresh("d");
  write_dataset(dir, obs, act, 3);
  const fs::path chunk = dir / "chunk-000000.rlzd";
  const std::string pristine = durable::read_file(chunk);
  // Record offsets from the framing: [len][crc][payload] after the 8-byte magic.
  std::vector<std::uint64_t> offsets;
  for (std::uint64_t at = 8; at < pristine.size();) {
    offsets.push_back(at);
    std::uint32_t len;
    std::memcpy(&len, pristine.data() + at, 4);
    at += 8 + len;
  }
  ASSERT_EQ(offsets.size(), 3u);
  auto restore = [&] { durable::replace_file(chunk, pristine); };

  // A flipped payload byte of the second record: CRC mismatch at that record's offset.
  flip_byte(chunk, offsets[1] + 8 + 5);
  EXPECT_THAT(read_error(dir), HasSubstr(chunk.string() + ": byte offset " + std::to_string(offsets[1]) + ": CRC mismatch"));
  restore();
  // A flipped CRC byte.
  flip_byte(chunk, offsets[2] + 4);
  EXPECT_THAT(read_error(dir), HasSubstr(chunk.string() + ": byte offset " + std::to_string(offsets[2]) + ": CRC mismatch"));
  restore();
  // Bad magic.
  flip_byte(chunk, 2);
  EXPECT_THAT(read_error(dir), HasSubstr(chunk.string() + ": byte offset 0: bad magic"));
  restore();
  // Truncated inside the last record: its header announces more than is left.
  fs::resize_file(chunk, pristine.size() - 3);
  EXPECT_THAT(read_error(dir), HasSubstr(chunk.string() + ": byte offset " + std::to_string(offsets[2]) +
                                         ": truncated record: its header announces"));
  // Truncated inside a header.
  fs::resize_file(chunk, offsets[2] + 5);
  EXPECT_THAT(read_error(dir), HasSubstr("byte offset " + std::to_string(offsets[2]) + ": truncated record: 5 bytes left"));
  // Truncated at a record boundary: fewer episodes than the manifest lists.
  fs::resize_file(chunk, offsets[2]);
  EXPECT_THAT(read_error(dir), HasSubstr("byte offset " + std::to_string(offsets[2]) +
                                         ": end of file after 2 episodes; dataset.json lists 3 for this chunk"));
  restore();
  EXPECT_EQ(read_error(dir), "");
}

TEST(Dataset, ManifestProblemsAreClearErrors) {
  const Space obs = Space::box(-1, 1, {4}), act = Space::discrete(2);
  const fs::path dir = fresh("d");
  write_dataset(dir, obs, act, 3);
  const fs::path manifest = dir / "dataset.json";
  const json good = json::parse(durable::read_file(manifest));
  auto with = [&](const std::function<void(json&)>& edit) {
    json j = good;
    edit(j);
    durable::replace_file(manifest, j.dump());
    return test::error_of([&] { DatasetReader(dir).for_each([](std::int64_t, EpisodeData&&) {}); });
  };
  EXPECT_THAT(with([](json& j) { j["format"] = "other"; }),
              HasSubstr(manifest.string() + ": format \"other\" is not \"rlzoo-dataset\""));
  EXPECT_THAT(with([](json& j) { j["version"] = 2; }),
              HasSubstr(manifest.string() + ": format version 2 is newer than this rlzoo reads (1)"));
  EXPECT_THAT(with([](json& j) { j.erase("chunks"); }), HasSubstr(manifest.string() + ": missing key 'chunks'"));
  EXPECT_THAT(with([](json& j) { j["steps"] = j["steps"].get<int>() + 1; }), HasSubstr("the chunks hold 3 episodes and"));
  EXPECT_THAT(with([](json& j) { j["returns"].erase(0); }), HasSubstr("3 episodes but 2 returns and 3 lengths"));
  EXPECT_THAT(with([](json& j) { j["observation_space"]["dtype"] = "float16"; }),
              HasSubstr(manifest.string() + ": observation_space: key 'dtype'"));
  // Lengths that disagree with the records: caught while reading, with the record's offset.
  EXPECT_THAT(with([](json& j) {
                const auto l0 = j["lengths"][0].get<int>(), l1 = j["lengths"][1].get<int>();
                j["lengths"][0] = l1;
                j["lengths"][1] = l0;
              }),
              HasSubstr(": byte offset 8: episode 0 has 1 steps, dataset.json says 8"));
  // A space of the wrong size: every record fails its size check.
  EXPECT_THAT(with([](json& j) { j["observation_space"]["shape"] = {5}; }),
              HasSubstr("byte offset 8: episode 0: field 'observations' has 16 bytes"));
  durable::replace_file(manifest, "{not json");
  EXPECT_THAT(test::error_of([&] { DatasetReader{dir}; }), HasSubstr(manifest.string() + ": invalid JSON"));
  fs::remove(manifest);
  EXPECT_THAT(test::error_of([&] { DatasetReader{dir}; }), HasSubstr("no dataset.json; not an rlzoo dataset"));
  EXPECT_THAT(test::error_of([&] { DatasetReader{dir / "missing"}; }), HasSubstr("no such dataset directory"));
}

}  // namespace
}  // namespace rlzoo::data
