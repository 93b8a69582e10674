// Writes an rlzoo dataset directory (docs/datasets.md) episode by episode:
//
//   DatasetWriter out("data/cartpole", "CartPole-v1", env->observation_space(), env->action_space(),
//                     {{"policy", "random"}});
//   out.add(episode);   // validated against the spaces, appended to the current chunk file
//   out.close();        // fsyncs the last chunk, then publishes dataset.json atomically
//
// Chunk files stream: a new one starts once the current one passes chunk_bytes. A reader sees
// the dataset only after close() wrote dataset.json.
//
// With WriterOptions::append, an existing dataset grows: its manifest is read, the new
// episodes go to new chunk files (existing files are never modified), and the manifest is
// rewritten atomically by close(); until then readers see the old dataset. A writer holds an
// advisory lock (flock) on the directory until it closes, so a second writer of the same
// directory, in this process or another, is refused instead of losing the first one's episodes.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "datasets/episode.h"
#include "datasets/manifest.h"

namespace rlzoo::data {

class ChunkWriter;

struct WriterOptions {
  // A chunk file is closed (and the next episode starts a new one) once it holds more than
  // this many bytes. An episode is never split, so a chunk may exceed it by one episode.
  std::uint64_t chunk_bytes = std::uint64_t{64} << 20;
  // Write into a directory that is not empty: its dataset.json and chunk-*.rlzd files are
  // removed first (other files are left alone). Without it a non-empty directory is refused.
  bool overwrite = false;
  // Add to the dataset already in the directory (same env id and spaces, else UserError); its
  // source is kept and this writer's source is appended to its "appends" list. A directory
  // without dataset.json must be empty (or absent): then a new dataset is written. Not with
  // overwrite.
  bool append = false;
};

class DatasetWriter {
 public:
  // Creates `dir` (or checks that it is empty, see WriterOptions::overwrite), or opens the
  // dataset in it (WriterOptions::append). Throws UserError.
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
  // files this writer wrote, and the directory when this writer created it. An appending
  // writer leaves the dataset as it was. Then as closed.
  void abandon() noexcept;

  // The manifest as it stands (complete after close()); with append, the old episodes too.
  const DatasetInfo& info() const { return info_; }
  // Episodes in the dataset before this writer opened it (0 unless appending).
  std::int64_t episodes_before() const { return episodes_before_; }
  bool closed() const { return closed_; }

 private:
  void open_for_append(const std::string& env_id, const Space& observation_space, const Space& action_space,
                       nlohmann::json source);
  void unlock() noexcept;

  DatasetInfo info_;
  WriterOptions options_;
  std::unique_ptr<ChunkWriter> chunk_;
  std::size_t first_new_chunk_ = 0;  // info_.chunks from here on are this writer's
  std::size_t next_chunk_index_ = 0;
  std::int64_t episodes_before_ = 0;
  int lock_fd_ = -1;                 // the directory, flock'ed while open
  bool created_dir_ = false;
  bool closed_ = false;
};

}  // namespace rlzoo::data
