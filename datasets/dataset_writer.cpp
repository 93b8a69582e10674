#include "datasets/dataset_writer.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "datasets/chunk_file.h"
#include "core/checkpoint/durable_io.h"

namespace rlzoo::data {

namespace fs = std::filesystem;

namespace {

// An exclusive advisory lock on the directory itself (no lock file to clean up), or -1 where
// the file system has no flock; a directory locked by another open writer is a UserError.
int lock_directory(const fs::path& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) durable::throw_os_error("cannot open", dir, errno);
  if (::flock(fd, LOCK_EX | LOCK_NB) == 0) return fd;
  const int err = errno;
  ::close(fd);
  if (err == EWOULDBLOCK)
    throw UserError(fmt::format("{}: another writer (in this or another process) has this dataset open; wait for it "
                                "to finish or write elsewhere",
                                dir.string()));
  return -1;  // ENOLCK, EOPNOTSUPP, ...: write without the lock
}

}  // namespace

DatasetWriter::DatasetWriter(fs::path dir, std::string env_id, Space observation_space, Space action_space,
                             nlohmann::json source, WriterOptions options)
    : options_(options) {
  if (options_.chunk_bytes == 0) throw UserError("DatasetWriter: chunk_bytes must be > 0");
  if (options_.append && options_.overwrite)
    throw UserError(fmt::format("{}: append and overwrite exclude each other", dir.string()));
  if (source.is_null()) source = nlohmann::json::object();
  std::error_code ec;
  if (options_.append && fs::exists(dir / kManifestName, ec)) {
    info_.dir = std::move(dir);
    open_for_append(env_id, observation_space, action_space, std::move(source));
    return;
  }
  // A directory that exists is locked before it is checked (or cleared, with overwrite), so a
  // writer at work in it is never disturbed; a new one is locked as soon as it exists.
  if (fs::is_directory(dir, ec)) lock_fd_ = lock_directory(dir);
  try {
    created_dir_ = prepare_output_dir(dir, options_.overwrite);
    if (created_dir_) lock_fd_ = lock_directory(dir);
  } catch (...) {
    unlock();
    throw;
  }
  info_.dir = std::move(dir);
  info_.env = std::move(env_id);
  info_.observation_space = std::move(observation_space);
  info_.action_space = std::move(action_space);
  info_.source = std::move(source);
}

void DatasetWriter::open_for_append(const std::string& env_id, const Space& observation_space,
                                    const Space& action_space, nlohmann::json source) {
  lock_fd_ = lock_directory(info_.dir);
  try {
    DatasetInfo old = read_manifest(info_.dir);  // read under the lock: no writer is changing it
    const std::string where = (info_.dir / kManifestName).string();
    if (old.env != env_id)
      throw UserError(fmt::format("{}: cannot append episodes of {} to a dataset of {}", where,
                                  env_id.empty() ? "\"\"" : env_id, old.env.empty() ? "\"\"" : old.env));
    if (!(old.observation_space == observation_space))
      throw UserError(fmt::format("{}: cannot append: the dataset's observation space is {}, the new episodes' {}",
                                  where, old.observation_space.describe(), observation_space.describe()));
    if (!(old.action_space == action_space))
      throw UserError(fmt::format("{}: cannot append: the dataset's action space is {}, the new episodes' {}", where,
                                  old.action_space.describe(), action_space.describe()));
    info_ = std::move(old);
  } catch (...) {
    unlock();
    throw;
  }
  if (!info_.source.is_object()) info_.source = nlohmann::json{{"original", info_.source}};
  nlohmann::json& appends = info_.source["appends"];
  if (!appends.is_array()) appends = nlohmann::json::array();
  appends.push_back(std::move(source));
  first_new_chunk_ = next_chunk_index_ = info_.chunks.size();
  episodes_before_ = info_.episodes;
}

DatasetWriter::~DatasetWriter() {
  if (!closed_) {
    try {
      close();
    } catch (const std::exception& e) {
      spdlog::error("dataset {}: could not be closed: {}", info_.dir.string(), e.what());
    }
  }
  unlock();
}

void DatasetWriter::unlock() noexcept {
  if (lock_fd_ >= 0) ::close(lock_fd_);  // closing the descriptor releases the flock
  lock_fd_ = -1;
}

void DatasetWriter::add(const EpisodeData& episode) {
  RLZOO_CHECK(!closed_, "add() to a closed dataset " + info_.dir.string());
  check_episode(episode, info_.observation_space, info_.action_space, fmt::format("episode {}", info_.episodes));
  const std::string payload = encode_episode(episode);
  if (!chunk_) {
    // Appending: chunk files left by a writer that crashed before its manifest are not the
    // dataset's (the manifest does not list them); their names are skipped, not reused.
    std::string name = chunk_file_name(next_chunk_index_++);
    for (std::error_code ec; fs::exists(info_.dir / name, ec);) name = chunk_file_name(next_chunk_index_++);
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
  try {
    if (chunk_) {
      chunk_->close();
      chunk_.reset();
    }
    durable::sync_directory(info_.dir);  // the chunk files' names, before the manifest that lists them
    write_manifest(info_);
  } catch (...) {
    unlock();
    throw;
  }
  unlock();
}

void DatasetWriter::abandon() noexcept {
  if (closed_) return;
  closed_ = true;
  chunk_.reset();
  std::error_code ec;
  for (std::size_t i = first_new_chunk_; i < info_.chunks.size(); ++i)
    std::filesystem::remove(info_.dir / info_.chunks[i].file, ec);
  unlock();
  if (created_dir_) std::filesystem::remove(info_.dir, ec);  // only when empty
}

}  // namespace rlzoo::data
