// TensorBoard output: every numeric value of a dump becomes a scalar at `step` (one event per
// scalar, as SB3/torch.utils.tensorboard write), then the file is flushed, as SB3 does after
// every dump. String values are skipped: TensorBoard cannot plot them.
#pragma once

#include <filesystem>

#include "core/logging/event_file_writer.h"
#include "core/logging/log_sink.h"

namespace rlzoo {

class TensorBoardSink : public LogSink {
 public:
  // Opens a new event file in `log_dir` (created if needed). Throws UserError when it cannot.
  explicit TensorBoardSink(const std::filesystem::path& log_dir, EventFileWriterOptions options = {})
      : writer_(log_dir, std::move(options)) {}

  std::string_view name() const override { return "tensorboard"; }
  void write(std::span<const LogEntry> entries, std::int64_t step) override {
    double number = 0;
    for (const LogEntry& e : entries)
      if (log_value_as_double(e.value, number)) writer_.add_scalar(e.key, number, step);
    writer_.flush();
  }
  void close() override { writer_.close(); }

  const EventFileWriter& writer() const { return writer_; }

 private:
  EventFileWriter writer_;
};

}  // namespace rlzoo
