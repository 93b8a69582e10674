// The dataset format: write/read round trips (bytes back exactly, many chunks), the manifest,
// appending, ranges and merging. Bad data: dataset_errors_test.cpp.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>

#include "datasets/as_floats.h"
#include "datasets/chunk_file.h"
#include "datasets/dataset_reader.h"
#include "datasets/dataset_writer.h"
#include "datasets/merge.h"
#include "core/checkpoint/durable_io.h"
#include "core/spaces/space_json.h"
#include "tests/datasets/episode_fixtures.h"
#include "tests/support/test_paths.h"

namespace rlzoo::data {
namespace {

using ::testing::HasSubstr;
namespace fs = std::filesystem;
using json = nlohmann::json;

constexpr double kInf = std::numeric_limits<double>::infinity();

using fixtures::expect_same;
using fixtures::make_episode;

using fixtures::fresh;
using fixtures::write_dataset;

TEST(Dataset, BoxRoundTripGivesTheSameBytesAndManifest) {
  const Space obs = Space::box(-kInf, kInf, {4}), act = Space::box(-1, 1, {2}, DType::Float64);
  const fs::path dir = fresh("d");
  const auto written = write_dataset(dir, obs, act, 6);

  DatasetReader reader(dir);
  const DatasetInfo& info = reader.info();
  EXPECT_EQ(info.env, "Test-v0");
  EXPECT_TRUE(info.observation_space == obs);
  EXPECT_TRUE(info.action_space == act);
  EXPECT_EQ(info.source["made_by"], "dataset_test");
  ASSERT_EQ(info.episodes, 6);
  std::int64_t steps = 0;
  for (std::size_t i = 0; i < written.size(); ++i) {
    EXPECT_EQ(info.lengths[i], written[i].length());
    EXPECT_EQ(info.returns[i], written[i].episode_return());
    steps += written[i].length();
  }
  EXPECT_EQ(info.steps, steps);
  ASSERT_EQ(info.chunks.size(), 1u);  // 64 MiB default: everything in one chunk
  EXPECT_EQ(info.chunks[0].file, "chunk-000000.rlzd");

  const auto back = reader.read_all();
  ASSERT_EQ(back.size(), written.size());
  for (std::size_t i = 0; i < back.size(); ++i) expect_same(back[i], written[i], static_cast<std::int64_t>(i));

  // The manifest is the documented JSON.
  const json j = json::parse(durable::read_file(dir / "dataset.json"));
  EXPECT_EQ(j["format"], "rlzoo-dataset");
  EXPECT_EQ(j["version"], 1);
  EXPECT_EQ(j["observation_space"]["low"], "-inf");
  EXPECT_EQ(j["episodes"], 6);
  EXPECT_EQ(j["chunks"][0]["episodes"], 6);
}

TEST(Dataset, DiscreteAndDictObservationsRoundTrip) {
  const Space discrete = Space::discrete(5, 2);
  const Space dict = Space::dict({{"image", Space::box(0, 255, {3, 3}, DType::UInt8)},
                                  {"flags", Space::multi_binary({3})},
                                  {"pos", Space::box(-kInf, kInf, {2}, DType::Float64)},
                                  {"room", Space::discrete(4)}});
  const Space act = Space::multi_discrete({3, 2});
  for (const Space& obs : {discrete, dict}) {
    const fs::path dir = fresh("d");
    const auto written = write_dataset(dir, obs, act, 4);
    DatasetReader reader(dir);
    EXPECT_TRUE(reader.info().observation_space == obs) << obs.describe();
    std::int64_t seen = 0;
    reader.for_each([&](std::int64_t i, EpisodeData&& e) {
      EXPECT_EQ(i, seen++);
      expect_same(e, written[static_cast<std::size_t>(i)], i);
    });
    EXPECT_EQ(seen, 4);
  }
}

TEST(Dataset, SmallChunkBytesSplitsIntoManyChunksReadInOrder) {
  const Space obs = Space::box(-1, 1, {8}), act = Space::discrete(3);
  const fs::path dir = fresh("d");
  WriterOptions options;
  options.chunk_bytes = 300;  // a few episodes per chunk
  const auto written = write_dataset(dir, obs, act, 25, options);
  DatasetReader reader(dir);
  const auto& chunks = reader.info().chunks;
  ASSERT_GT(chunks.size(), 4u);
  std::int64_t episodes = 0;
  for (std::size_t c = 0; c < chunks.size(); ++c) {
    EXPECT_EQ(chunks[c].file, chunk_file_name(c));
    EXPECT_TRUE(fs::exists(dir / chunks[c].file));
    episodes += chunks[c].episodes;
    // A chunk is closed after the episode that took it past chunk_bytes; only the last may be smaller.
    if (c + 1 < chunks.size()) {
      EXPECT_GT(fs::file_size(dir / chunks[c].file), options.chunk_bytes);
    }
  }
  EXPECT_EQ(episodes, 25);
  const auto back = reader.read_all();
  ASSERT_EQ(back.size(), 25u);
  for (std::size_t i = 0; i < back.size(); ++i) expect_same(back[i], written[i], static_cast<std::int64_t>(i));
}

TEST(Dataset, EpisodeWithoutFinalObservationAndEmptyDataset) {
  const Space obs = Space::box(-1, 1, {2}), act = Space::discrete(2);
  const fs::path dir = fresh("d");
  {
    DatasetWriter w(dir, "", obs, act, nullptr);
    w.add(make_episode(obs, act, 3, 1, /*final_observation=*/false));
  }  // closed by the destructor
  const auto back = DatasetReader(dir).read_all();
  ASSERT_EQ(back.size(), 1u);
  EXPECT_TRUE(back[0].final_observation.empty());

  const fs::path empty = fresh("e");
  DatasetWriter(empty, "", obs, act, nullptr).close();
  DatasetReader reader(empty);
  EXPECT_EQ(reader.info().episodes, 0);
  EXPECT_TRUE(reader.read_all().empty());
}

TEST(Dataset, WriterRefusesANonEmptyDirectoryUnlessOverwriting) {
  const Space obs = Space::box(-1, 1, {2}), act = Space::discrete(2);
  const fs::path dir = fresh("d");
  write_dataset(dir, obs, act, 3);
  EXPECT_THAT(test::error_of([&] { DatasetWriter(dir, "", obs, act, nullptr); }),
              HasSubstr(dir.string() + ": the directory is not empty (chunk-000000.rlzd, dataset.json)"));
  std::ofstream(dir / "notes.txt") << "kept";
  WriterOptions overwrite;
  overwrite.overwrite = true;
  const auto written = write_dataset(dir, obs, act, 2, overwrite, 100);
  const auto back = DatasetReader(dir).read_all();
  ASSERT_EQ(back.size(), 2u);
  expect_same(back[1], written[1], 1);
  EXPECT_TRUE(fs::exists(dir / "notes.txt"));  // only the dataset's own files are replaced

  const fs::path file = fs::path(test::make_temp_dir("rlzoo-dataset")) / "plain";
  std::ofstream(file) << "x";
  EXPECT_THAT(test::error_of([&] { DatasetWriter(file, "", obs, act, nullptr); }),
              HasSubstr("exists and is not a directory"));
}

TEST(Dataset, AbandonLeavesNoDatasetBehind) {
  const Space obs = Space::box(-1, 1, {2}), act = Space::discrete(2);
  WriterOptions small;
  small.chunk_bytes = 100;
  const fs::path dir = fresh("d");
  {
    DatasetWriter w(dir, "", obs, act, nullptr, small);
    for (int i = 0; i < 4; ++i) w.add(make_episode(obs, act, 5, static_cast<std::uint64_t>(i)));
    ASSERT_GT(w.info().chunks.size(), 1u);
    w.abandon();
  }  // the destructor writes nothing after abandon()
  EXPECT_FALSE(fs::exists(dir));  // it created the directory, so it removes it
  const fs::path existing = fresh("e");
  fs::create_directory(existing);
  {
    DatasetWriter w(existing, "", obs, act, nullptr);
    w.add(make_episode(obs, act, 5, 1));
    w.abandon();
  }
  EXPECT_TRUE(fs::is_directory(existing));
  EXPECT_TRUE(fs::is_empty(existing));
}

TEST(Dataset, AppendAddsNewChunksAndRewritesTheManifestOnClose) {
  const Space obs = Space::box(-1, 1, {3}), act = Space::discrete(4);
  const fs::path dir = fresh("d");
  auto written = write_dataset(dir, obs, act, 3);
  const std::string first_chunk = durable::read_file(dir / "chunk-000000.rlzd");
  std::ofstream(dir / "chunk-000001.rlzd") << "left by a writer that crashed before its manifest";

  WriterOptions append;
  append.append = true;
  {
    DatasetWriter w(dir, "Test-v0", obs, act, {{"made_by", "append"}}, append);
    EXPECT_EQ(w.episodes_before(), 3);
    for (std::uint64_t i = 0; i < 2; ++i) {
      written.push_back(make_episode(obs, act, 4, 50 + i));
      w.add(written.back());
    }
    EXPECT_EQ(read_manifest(dir).episodes, 3);  // readers see the old dataset until close()
    w.close();
  }
  const DatasetReader reader(dir);
  const DatasetInfo& info = reader.info();
  EXPECT_EQ(info.episodes, 5);
  ASSERT_EQ(info.chunks.size(), 2u);
  EXPECT_EQ(info.chunks[1].file, "chunk-000002.rlzd");  // the orphan's name is skipped, not reused
  EXPECT_EQ(durable::read_file(dir / "chunk-000000.rlzd"), first_chunk);
  EXPECT_EQ(info.source["made_by"], "dataset_test");
  EXPECT_EQ(info.source["appends"], json::parse(R"([{"made_by": "append"}])"));
  const auto back = reader.read_all();
  ASSERT_EQ(back.size(), 5u);
  for (std::size_t i = 0; i < back.size(); ++i) expect_same(back[i], written[i], static_cast<std::int64_t>(i));

  // A writer that gives up leaves the dataset as it was.
  {
    DatasetWriter w(dir, "Test-v0", obs, act, nullptr, append);
    w.add(make_episode(obs, act, 2, 9));
    w.abandon();
  }
  EXPECT_EQ(read_manifest(dir).episodes, 5);
  EXPECT_EQ(DatasetReader(dir).read_all().size(), 5u);

  // Append to a directory without a dataset: a new one.
  const fs::path empty = fresh("new");
  DatasetWriter(empty, "Test-v0", obs, act, nullptr, append).close();
  EXPECT_EQ(read_manifest(empty).episodes, 0);
}

TEST(Dataset, AppendRefusesOtherSpacesAndAnotherWriterOfTheDirectory) {
  const Space obs = Space::box(-1, 1, {3}), act = Space::discrete(4);
  const fs::path dir = fresh("d");
  write_dataset(dir, obs, act, 2);
  WriterOptions append;
  append.append = true;
  EXPECT_THAT(test::error_of([&] { DatasetWriter(dir, "Other-v0", obs, act, nullptr, append); }),
              HasSubstr("cannot append episodes of Other-v0 to a dataset of Test-v0"));
  EXPECT_THAT(test::error_of([&] { DatasetWriter(dir, "Test-v0", obs, Space::discrete(5), nullptr, append); }),
              HasSubstr("cannot append: the dataset's action space is Discrete(4)"));
  WriterOptions both = append;
  both.overwrite = true;
  EXPECT_THAT(test::error_of([&] { DatasetWriter(dir, "Test-v0", obs, act, nullptr, both); }),
              HasSubstr("append and overwrite exclude each other"));

  DatasetWriter first(dir, "Test-v0", obs, act, nullptr, append);
  EXPECT_THAT(test::error_of([&] { DatasetWriter(dir, "Test-v0", obs, act, nullptr, append); }),
              HasSubstr(dir.string() + ": another writer (in this or another process) has this dataset open"));
  WriterOptions overwrite;
  overwrite.overwrite = true;  // nor may another writer clear it meanwhile
  EXPECT_THAT(test::error_of([&] { DatasetWriter(dir, "Test-v0", obs, act, nullptr, overwrite); }),
              HasSubstr("another writer"));
  first.close();
  DatasetWriter(dir, "Test-v0", obs, act, nullptr, append).close();  // free again
  EXPECT_EQ(read_manifest(dir).episodes, 2);
}

TEST(Dataset, ForEachInReadsOnlyTheRangeAcrossChunks) {
  const Space obs = Space::box(-1, 1, {8}), act = Space::discrete(3);
  const fs::path dir = fresh("d");
  WriterOptions options;
  options.chunk_bytes = 300;
  const auto written = write_dataset(dir, obs, act, 25, options);
  const DatasetReader reader(dir);
  ASSERT_GT(reader.info().chunks.size(), 4u);
  for (auto [begin, end] : std::vector<std::pair<std::int64_t, std::int64_t>>{{0, 25}, {0, 0}, {3, 4}, {7, 19}, {24, 25}, {25, 25}}) {
    std::vector<std::int64_t> seen;
    reader.for_each_in(begin, end, [&](std::int64_t i, EpisodeData&& e) {
      seen.push_back(i);
      expect_same(e, written[static_cast<std::size_t>(i)], i);
    });
    ASSERT_EQ(static_cast<std::int64_t>(seen.size()), end - begin) << begin << ".." << end;
    for (std::size_t k = 0; k < seen.size(); ++k) EXPECT_EQ(seen[k], begin + static_cast<std::int64_t>(k));
  }
  // Chunks before the range are not opened: a missing one does not matter to a later range.
  const std::string first = reader.info().chunks.front().file;
  const std::int64_t in_first = reader.info().chunks.front().episodes;
  fs::remove(dir / first);
  std::int64_t n = 0;
  reader.for_each_in(in_first, 25, [&](std::int64_t, EpisodeData&&) { ++n; });
  EXPECT_EQ(n, 25 - in_first);
  EXPECT_THAT(test::error_of([&] { reader.for_each_in(3, 26, [](std::int64_t, EpisodeData&&) {}); }),
              HasSubstr("episodes 3 .. 25 requested; the dataset has episodes 0 .. 24"));
}

TEST(Dataset, MergeCopiesChunksAndConcatenates) {
  const Space obs = Space::box(-1, 1, {3}), act = Space::discrete(4);
  WriterOptions small;
  small.chunk_bytes = 200;
  const fs::path a = fresh("a"), b = fresh("b"), out = fresh("m");
  auto wa = write_dataset(a, obs, act, 5, small, 0);
  auto wb = write_dataset(b, obs, act, 4, {}, 50);
  MergeOptions options;
  options.source = {{"command", "test"}};
  merge_datasets(out, {a, b}, options);

  DatasetReader merged(out);
  const DatasetInfo& info = merged.info();
  const DatasetInfo ia = DatasetReader(a).info(), ib = DatasetReader(b).info();
  EXPECT_EQ(info.env, "Test-v0");
  EXPECT_EQ(info.episodes, 9);
  EXPECT_EQ(info.steps, ia.steps + ib.steps);
  ASSERT_EQ(info.chunks.size(), ia.chunks.size() + ib.chunks.size());
  for (std::size_t c = 0; c < info.chunks.size(); ++c) {
    const fs::path from = c < ia.chunks.size() ? a / ia.chunks[c].file : b / ib.chunks[c - ia.chunks.size()].file;
    EXPECT_EQ(durable::read_file(out / info.chunks[c].file), durable::read_file(from)) << c;  // byte for byte
  }
  EXPECT_EQ(info.source["command"], "test");
  ASSERT_EQ(info.source["inputs"].size(), 2u);
  EXPECT_EQ(info.source["inputs"][1]["path"], b.string());
  EXPECT_EQ(info.source["inputs"][1]["source"]["made_by"], "dataset_test");
  std::vector<EpisodeData> expected = wa;
  expected.insert(expected.end(), wb.begin(), wb.end());
  const auto back = merged.read_all();
  ASSERT_EQ(back.size(), expected.size());
  for (std::size_t i = 0; i < back.size(); ++i) {
    expect_same(back[i], expected[i], static_cast<std::int64_t>(i));
    EXPECT_EQ(info.returns[i], expected[i].episode_return());
  }
}

TEST(Dataset, MergeRejectsMismatchedSpacesAndKeepsEnvOnlyWhenShared) {
  const Space obs = Space::box(-1, 1, {3}), act = Space::discrete(4);
  const fs::path a = fresh("a"), b = fresh("b"), c = fresh("c");
  write_dataset(a, obs, act, 2);
  write_dataset(b, obs, act, 2);
  write_dataset(c, Space::box(-1, 1, {4}), act, 2);
  const fs::path out = fresh("m");
  EXPECT_EQ(test::error_of([&] { merge_datasets(out, {a, b, c}); }),
            "merge: " + c.string() + " has observation space Box(-1, 1, (4,), float32), but " + a.string() +
                " has Box(-1, 1, (3,), float32)");
  EXPECT_FALSE(fs::exists(out));  // nothing written before the inputs were checked
  const fs::path d = fresh("d");
  write_dataset(d, obs, Space::discrete(5), 1);
  EXPECT_THAT(test::error_of([&] { merge_datasets(out, {a, d}); }),
              HasSubstr("merge: " + d.string() + " has action space Discrete(5), but"));
  EXPECT_THAT(test::error_of([&] { merge_datasets(a, {a, b}); }), HasSubstr("is also an input"));

  // Different env ids merge into "".
  const fs::path e = fresh("e");
  DatasetWriter(e, "Other-v0", obs, act, nullptr).close();
  merge_datasets(out, {a, e});
  EXPECT_EQ(DatasetReader(out).info().env, "");
  EXPECT_EQ(DatasetReader(out).info().episodes, 2);
}

TEST(Dataset, AsFloatsConvertsEveryKind) {
  auto bytes = [](const auto& values) {
    const auto* p = reinterpret_cast<const std::byte*>(values.data());
    return std::vector<std::byte>(p, p + values.size() * sizeof(values[0]));
  };
  EXPECT_EQ(as_floats(Space::discrete(5, 1), bytes(std::vector<std::int64_t>{1, 5, 3})),
            (std::vector<float>{1, 5, 3}));
  EXPECT_EQ(as_floats(Space::multi_discrete({3, 4}), bytes(std::vector<std::int64_t>{2, 3, 0, 1})),
            (std::vector<float>{2, 3, 0, 1}));
  EXPECT_EQ(as_floats(Space::multi_binary({3}), bytes(std::vector<std::uint8_t>{1, 0, 1, 0, 0, 1})),
            (std::vector<float>{1, 0, 1, 0, 0, 1}));
  EXPECT_EQ(as_floats(Space::box(0, 255, {2}, DType::UInt8), bytes(std::vector<std::uint8_t>{0, 255})),
            (std::vector<float>{0, 255}));
  EXPECT_EQ(as_floats(Space::box(-9, 9, {2}, DType::Int32), bytes(std::vector<std::int32_t>{-7, 8})),
            (std::vector<float>{-7, 8}));
  EXPECT_EQ(as_floats(Space::box(-9, 9, {2}, DType::Int64), bytes(std::vector<std::int64_t>{-7, 8})),
            (std::vector<float>{-7, 8}));
  EXPECT_EQ(as_floats(Space::box(-1, 1, {2}), bytes(std::vector<float>{0.25f, -0.5f})),
            (std::vector<float>{0.25f, -0.5f}));
  EXPECT_EQ(as_floats(Space::box(-1, 1, {1}, DType::Float64), bytes(std::vector<double>{0.1})),
            (std::vector<float>{0.1f}));
  // Dict: fields in order, the padding after the 1-byte MultiBinary skipped.
  const Space dict = Space::dict({{"b", Space::multi_binary({1})}, {"x", Space::box(-1, 1, {1}, DType::Float64)}});
  ASSERT_EQ(dict.byte_size(), 16u);
  std::vector<std::byte> element(16);
  element[0] = std::byte{1};
  const double x = -0.75;
  std::memcpy(element.data() + 8, &x, 8);
  EXPECT_EQ(as_floats(dict, element), (std::vector<float>{1, -0.75f}));
  EXPECT_THAT(test::error_of([&] { as_floats(Space::discrete(2), std::vector<std::byte>(12)); }),
              HasSubstr("as_floats: 12 bytes are not a whole number of elements of Discrete(2)"));
}

}  // namespace
}  // namespace rlzoo::data
