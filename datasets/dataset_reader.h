// Reads an rlzoo dataset directory (docs/datasets.md).
//
//   DatasetReader data("data/cartpole");     // reads and checks dataset.json
//   data.info().episodes, data.info().returns, data.info().observation_space, ...
//   data.for_each([](std::int64_t i, EpisodeData&& e) { ... });   // streams, chunk by chunk
//
// Everything read is checked: the chunk framing and CRCs, each episode's sizes against the
// spaces, and the counts against the manifest. Bad data is a UserError naming the file and
// the byte offset where the bad part starts.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <vector>

#include "datasets/episode.h"
#include "datasets/manifest.h"

namespace rlzoo::data {

class DatasetReader {
 public:
  explicit DatasetReader(std::filesystem::path dir);

  const DatasetInfo& info() const { return info_; }

  // Calls f(index, episode) for every episode in order (index 0 .. episodes-1), reading one
  // chunk file at a time and one record at a time.
  void for_each(const std::function<void(std::int64_t index, EpisodeData&& episode)>& f) const;
  // The same for episodes begin .. end-1 only: chunk files before begin are not opened, and
  // reading stops after episode end-1 (records before begin in its chunk are read and
  // CRC-checked, not decoded). Throws UserError unless 0 <= begin <= end <= episodes.
  void for_each_in(std::int64_t begin, std::int64_t end,
                   const std::function<void(std::int64_t index, EpisodeData&& episode)>& f) const;
  // Every episode in memory.
  std::vector<EpisodeData> read_all() const;

 private:
  DatasetInfo info_;
};

}  // namespace rlzoo::data
