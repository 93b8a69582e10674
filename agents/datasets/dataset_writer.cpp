#include "agents/datasets/dataset_writer.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "agents/datasets/chunk_file.h"
#include "core/checkpoint/durable_io.h"

namespace rlzoo::data {

DatasetWriter::DatasetWriter(std::filesystem::path dir, std::string env_id, Space observation_space,
                             Space action_space, nlohmann::json source, WriterOptions options)
    : options_(options) {
  if (options_.chunk_bytes == 0) throw UserError("DatasetWriter: chunk_bytes must be > 0");
  created_dir_ = prepare_output_dir(dir, options_.overwrite);
  info_.dir = std::move(dir);
  info_.env = std::move(env_id);
  info_.observation_space = std::move(observation_space);
  info_.action_space = std::move(action_space);
  info_.source = source.is_null() ? nlohmann::json::object() : std::move(source);
}

DatasetWriter::~DatasetWriter() {
  if (closed_) return;
  try {
    close();
  } catch (const std::exception& e) {
    spdlog::error("dataset {}: could not be closed: {}", info_.dir.string(), e.what());
  }
}

void DatasetWriter::add(const EpisodeData& episode) {
  RLZOO_CHECK(!closed_, "add() to a closed dataset " + info_.dir.string());
  check_episode(episode, info_.observation_space, info_.action_space, fmt::format("episode {}", info_.episodes));
  const std::string payload = encode_episode(episode);
  if (!chunk_) {
    const std::string name = chunk_file_name(info_.chunks.size());
    chunk_ = std::make_unique<ChunkWriter>(info_.dir / name);
    info_.chunks.push_back({name, 0, 0});
  }
  chunk_->append(payload);
  ChunkInfo& c = info_.chunks.back();
  c.episodes += 1;
  c.steps += episode.length();
  info_.episodes += 1;
  info_.steps += episode.length();
  info_.returns.push_back(episode.episode_return());
  info_.lengths.push_back(episode.length());
  if (chunk_->bytes() > options_.chunk_bytes) {
    chunk_->close();
    chunk_.reset();
  }
}

void DatasetWriter::close() {
  if (closed_) return;
  closed_ = true;
  if (chunk_) {
    chunk_->close();
    chunk_.reset();
  }
  durable::sync_directory(info_.dir);  // the chunk files' names, before the manifest that lists them
  write_manifest(info_);
}

void DatasetWriter::abandon() noexcept {
  if (closed_) return;
  closed_ = true;
  chunk_.reset();
  std::error_code ec;
  for (const ChunkInfo& c : info_.chunks) std::filesystem::remove(info_.dir / c.file, ec);
  if (created_dir_) std::filesystem::remove(info_.dir, ec);  // only when empty
}

}  // namespace rlzoo::data
