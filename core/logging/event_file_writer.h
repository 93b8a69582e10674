// Writes a TensorBoard event file: the first record is the file_version event (flushed at once,
// so TensorBoard sees a valid file even if the run dies before the first dump); scalars become
// Summary.Value.simple_value, what torch.utils.tensorboard and SB3 write by default.
//
// Records are only ever written whole: they collect in memory and flush() hands complete ones
// to the OS in a single write, so a crash loses at most the records since the last flush and a
// reader never sees our own half-written buffer. Not thread-safe: one writer per thread.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>

#include "core/logging/proto/event.pb.h"  // generated

namespace rlzoo {

// `events.out.tfevents.<10-digit unix seconds>.<hostname>.<pid>.<counter><suffix>`, the name
// TensorBoard's own writer uses. `counter` numbers the writers of one process (TensorBoard's
// "_global_uid"), so two writers opened in the same second get distinct files.
std::string event_file_name(double unix_seconds, std::string_view hostname, std::int64_t pid,
                            std::uint64_t counter, std::string_view suffix = {});

struct EventFileWriterOptions {
  // Appended to the file name (TensorBoard's filename_suffix), e.g. ".eval".
  std::string filename_suffix;
  // Seconds since the Unix epoch, for wall_time and the file name. Default: the system clock.
  // Tests inject a fixed clock.
  std::function<double()> wall_clock;
  // Written into the first event's source_metadata.writer.
  std::string writer_name = "rlzoo";
  // Pending records are flushed early once they pass this many bytes (still whole records).
  std::size_t max_pending_bytes = 1 << 20;
};

class EventFileWriter {
 public:
  // Creates `log_dir` (and parents) if needed and a new event file in it, then writes and
  // flushes the file_version record. Throws UserError naming the path when either fails.
  explicit EventFileWriter(const std::filesystem::path& log_dir, EventFileWriterOptions options = {});
  ~EventFileWriter();  // close(); errors are logged, not thrown

  EventFileWriter(const EventFileWriter&) = delete;
  EventFileWriter& operator=(const EventFileWriter&) = delete;

  // One event holding one simple_value scalar (stored as float, like TensorBoard). `wall_time`
  // < 0 means "now" from the wall clock.
  void add_scalar(std::string_view tag, double value, std::int64_t step, double wall_time = -1);

  // Any event (its bytes are written as given). Buffered until flush().
  void write_event(const tensorboard::Event& event);

  // Writes every pending record to the file. Throws UserError on an I/O error.
  void flush();

  // flush() and close the file; further writes throw. Idempotent.
  void close();

  const std::filesystem::path& path() const { return path_; }
  bool is_open() const { return fd_ >= 0; }

 private:
  double now() const;

  EventFileWriterOptions options_;
  std::filesystem::path path_;
  int fd_ = -1;
  std::string pending_;  // whole framed records not yet written
  // Reused for every scalar so a dump does not rebuild the message each time.
  tensorboard::Event scratch_event_;
  std::string scratch_bytes_;
};

}  // namespace rlzoo
