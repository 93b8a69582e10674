#include "agents/datasets/dataset_reader.h"

#include <fmt/format.h>

#include "agents/datasets/chunk_file.h"

namespace rlzoo::data {

DatasetReader::DatasetReader(std::filesystem::path dir) : info_(read_manifest(dir)) {}

void DatasetReader::for_each(const std::function<void(std::int64_t, EpisodeData&&)>& f) const {
  std::int64_t index = 0;
  std::string payload;
  for (const ChunkInfo& chunk : info_.chunks) {
    ChunkReader reader(info_.dir / chunk.file);
    std::int64_t episodes = 0, steps = 0;
    while (reader.next(payload)) {
      const std::string at = fmt::format("{}: byte offset {}: episode {}", reader.path().string(),
                                         reader.record_offset(), index);
      if (episodes == chunk.episodes)
        reader.fail(fmt::format("more records than the {} episodes {} lists for this chunk", chunk.episodes,
                                kManifestName));
      EpisodeData e = decode_episode(payload, at);
      check_episode(e, info_.observation_space, info_.action_space, at);
      const std::int64_t expected = info_.lengths[static_cast<std::size_t>(index)];
      if (e.length() != expected)
        reader.fail(fmt::format("episode {} has {} steps, {} says {}", index, e.length(), kManifestName, expected));
      ++episodes;
      steps += e.length();
      f(index++, std::move(e));
    }
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
