#include "core/logging/event_file_writer.h"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "core/common/error.h"
#include "core/logging/tfrecord.h"

namespace rlzoo {

namespace {

// Numbers the writers of this process, like TensorBoard's _global_uid.
std::atomic<std::uint64_t> g_writer_counter{0};

std::string host_name() {
  char buf[HOST_NAME_MAX + 1] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0 || buf[0] == '\0') return "localhost";
  std::string name(buf);
  // A '/' would turn the host part into a directory.
  for (char& c : name)
    if (c == '/') c = '_';
  return name;
}

double system_seconds() {
  using namespace std::chrono;
  return duration<double>(system_clock::now().time_since_epoch()).count();
}

}  // namespace

std::string event_file_name(double unix_seconds, std::string_view hostname, std::int64_t pid,
                            std::uint64_t counter, std::string_view suffix) {
  // Whole seconds, zero-padded to 10 digits, as TensorBoard's "%010d" % time.time().
  return fmt::format("events.out.tfevents.{:010d}.{}.{}.{}{}", static_cast<std::int64_t>(unix_seconds), hostname,
                     pid, counter, suffix);
}

EventFileWriter::EventFileWriter(const std::filesystem::path& log_dir, EventFileWriterOptions options)
    : options_(std::move(options)) {
  std::error_code ec;
  std::filesystem::create_directories(log_dir, ec);
  if (ec) throw UserError(fmt::format("cannot create TensorBoard log dir '{}': {}", log_dir.string(), ec.message()));

  const double start = now();
  const std::string host = host_name();
  // O_EXCL: never append to someone else's file. A clash (same host, pid and second, e.g. two
  // containers that both run as pid 1 on a shared volume) just takes the next counter.
  for (int attempt = 0; attempt < 1000 && fd_ < 0; ++attempt) {
    path_ = log_dir / event_file_name(start, host, ::getpid(), g_writer_counter.fetch_add(1), options_.filename_suffix);
    fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
    if (fd_ < 0 && errno != EEXIST)
      throw UserError(fmt::format("cannot create TensorBoard event file '{}': {}", path_.string(), std::strerror(errno)));
  }
  if (fd_ < 0) throw UserError(fmt::format("cannot create a new TensorBoard event file in '{}'", log_dir.string()));

  tensorboard::Event version;
  version.set_wall_time(start);
  version.set_file_version("brain.Event:2");
  version.mutable_source_metadata()->set_writer(options_.writer_name);
  write_event(version);
  flush();
}

EventFileWriter::~EventFileWriter() {
  try {
    close();
  } catch (const std::exception& e) {
    spdlog::error("TensorBoard event file: {}", e.what());
  }
}

double EventFileWriter::now() const { return options_.wall_clock ? options_.wall_clock() : system_seconds(); }

void EventFileWriter::add_scalar(std::string_view tag, double value, std::int64_t step, double wall_time) {
  scratch_event_.Clear();
  scratch_event_.set_wall_time(wall_time < 0 ? now() : wall_time);
  scratch_event_.set_step(step);
  tensorboard::Summary::Value* v = scratch_event_.mutable_summary()->add_value();
  v->set_tag(std::string(tag));
  v->set_simple_value(static_cast<float>(value));
  write_event(scratch_event_);
}

void EventFileWriter::write_event(const tensorboard::Event& event) {
  if (fd_ < 0) throw UserError(fmt::format("TensorBoard event file '{}' is already closed", path_.string()));
  scratch_bytes_.clear();
  if (!event.SerializeToString(&scratch_bytes_))
    throw UserError(fmt::format("cannot serialize an event for '{}'", path_.string()));
  append_tfrecord(pending_, scratch_bytes_);
  if (pending_.size() >= options_.max_pending_bytes) flush();
}

void EventFileWriter::flush() {
  if (fd_ < 0) return;
  std::size_t done = 0;
  while (done < pending_.size()) {
    const ::ssize_t n = ::write(fd_, pending_.data() + done, pending_.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      // Keep what was not written, so a later flush continues exactly where this one stopped.
      pending_.erase(0, done);
      throw UserError(fmt::format("cannot write TensorBoard event file '{}': {}", path_.string(), std::strerror(err)));
    }
    done += static_cast<std::size_t>(n);
  }
  pending_.clear();
}

void EventFileWriter::close() {
  if (fd_ < 0) return;
  // Close the descriptor even when the final flush fails, then report the failure.
  struct Closer {
    int& fd;
    ~Closer() {
      ::close(fd);
      fd = -1;
    }
  } closer{fd_};
  flush();
}

}  // namespace rlzoo
