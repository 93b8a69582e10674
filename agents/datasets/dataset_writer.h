// Writes an rlzoo dataset directory (docs/datasets.md) episode by episode:
//
//   DatasetWriter out("data/cartpole", "CartPole-v1", env->observation_space(), env->action_space(),
//                     {{"policy", "random"}});
//   out.add(episode);   // validated against the spaces, appended to the current chunk file
//   out.close();        // fsyncs the last chunk, then publishes dataset.json atomically
//
// Chunk files stream: a new one starts once the current one passes chunk_bytes. A reader sees
// the dataset only after close() wrote dataset.json.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "agents/datasets/episode.h"
#include "agents/datasets/manifest.h"

namespace rlzoo::data {

class ChunkWriter;

struct WriterOptions {
  // A chunk file is closed (and the next episode starts a new one) once it holds more than
  // this many bytes. An episode is never split, so a chunk may exceed it by one episode.
  std::uint64_t chunk_bytes = std::uint64_t{64} << 20;
  // Write into a directory that is not empty: its dataset.json and chunk-*.rlzd files are
  // removed first (other files are left alone). Without it a non-empty directory is refused.
  bool overwrite = false;
};

class DatasetWriter {
 public:
  // Creates `dir` (or checks that it is empty, see WriterOptions::overwrite). Throws UserError.
  DatasetWriter(std::filesystem::path dir, std::string env_id, Space observation_space, Space action_space,
                nlohmann::json source, WriterOptions options = {});
  DatasetWriter(const DatasetWriter&) = delete;
  DatasetWriter& operator=(const DatasetWriter&) = delete;
  // Closes when close() was not called; errors are logged, not thrown.
  ~DatasetWriter();

  // Appends one episode. Throws UserError "episode <index>: field '<name>': ..." when its sizes
  // do not fit the spaces (see check_episode), and nothing is written then.
  void add(const EpisodeData& episode);
  // Fsyncs the open chunk and writes dataset.json atomically. Calling it again does nothing.
  void close();
  // Gives up (for a producer that failed half-way): writes no dataset.json, removes the chunk
  // files written so far, and the directory when this writer created it. Then as closed.
  void abandon() noexcept;

  // The manifest as it stands (complete after close()).
  const DatasetInfo& info() const { return info_; }
  bool closed() const { return closed_; }

 private:
  DatasetInfo info_;
  WriterOptions options_;
  std::unique_ptr<ChunkWriter> chunk_;
  bool created_dir_ = false;
  bool closed_ = false;
};

}  // namespace rlzoo::data
