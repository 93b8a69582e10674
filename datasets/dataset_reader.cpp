#include "datasets/dataset_reader.h"

#include <fmt/format.h>

#include "datasets/chunk_file.h"

namespace rlzoo::data {

DatasetReader::DatasetReader(std::filesystem::path dir) : info_(read_manifest(dir)) {}

void DatasetReader::for_each(const std::function<void(std::int64_t, EpisodeData&&)>& f) const {
  for_each_in(0, info_.episodes, f);
}

void DatasetReader::for_each_in(std::int64_t begin, std::int64_t end,
                                const std::function<void(std::int64_t, EpisodeData&&)>& f) const {
  if (begin < 0 || begin > end || end > info_.episodes)
    throw UserError(fmt::format("{}: episodes {} .. {} requested; the dataset has episodes 0 .. {}",
                                info_.dir.string(), begin, end - 1, info_.episodes - 1));
  std::int64_t index = 0;
  std::string payload;
  for (const ChunkInfo& chunk : info_.chunks) {
    if (index >= end) break;
    if (index + chunk.episodes <= begin) {  // wholly before the range: not even opened
      index += chunk.episodes;
      continue;
    }
    ChunkReader reader(info_.dir / chunk.file);
    std::int64_t episodes = 0, steps = 0;
    bool stopped = false;  // inside this chunk, after episode end-1: the rest is not read
    while (!(stopped = index >= end && episodes < chunk.episodes) && reader.next(payload)) {
      if (episodes == chunk.episodes)
        reader.fail(fmt::format("more records than the {} episodes {} lists for this chunk", chunk.episodes,
                                kManifestName));
      const std::int64_t expected = info_.lengths[static_cast<std::size_t>(index)];
      ++episodes;
      steps += expected;
      if (index < begin) {  // framing and CRC checked by next(); not decoded
        ++index;
        continue;
      }
      const std::string at = fmt::format("{}: byte offset {}: episode {}", reader.path().string(),
                                         reader.record_offset(), index);
      EpisodeData e = decode_episode(payload, at);
      check_episode(e, info_.observation_space, info_.action_space, at);
      if (e.length() != expected)
        reader.fail(fmt::format("episode {} has {} steps, {} says {}", index, e.length(), kManifestName, expected));
      f(index++, std::move(e));
    }
    if (stopped) break;
    if (episodes != chunk.episodes)
      reader.fail(fmt::format("end of file after {} episodes; {} lists {} for this chunk (the file is truncated)",
                              episodes, kManifestName, chunk.episodes));
    if (steps != chunk.steps)
      reader.fail(fmt::format("the chunk holds {} steps; {} lists {}", steps, kManifestName, chunk.steps));
  }
}

std::vector<EpisodeData> DatasetReader::read_all() const {
  std::vector<EpisodeData> out;
  out.reserve(static_cast<std::size_t>(info_.episodes));
  for_each([&](std::int64_t, EpisodeData&& e) { out.push_back(std::move(e)); });
  return out;
}

}  // namespace rlzoo::data
