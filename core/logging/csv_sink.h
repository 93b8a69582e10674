// SB3's progress.csv: one row per dump, one column per key. The header comes from the keys of
// the first dump; when a later dump brings new keys, the file is rewritten with the extended
// header and empty cells for the old rows (new columns go last, sorted), so every row always
// has every column. Strings are quoted ("" inside); numbers are written in full.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "core/logging/log_sink.h"

namespace rlzoo {

class CsvSink : public LogSink {
 public:
  // Creates `path` (and its directory), truncating an existing file as SB3 does. Throws
  // UserError naming the path when it cannot.
  explicit CsvSink(std::filesystem::path path);
  // Continues the log of a run that goes on from `step` (a resume): the existing file keeps its
  // header and the rows up to `step` (by their time/total_timesteps; the rows after it were
  // logged by work the checkpoint did not keep and will be logged again; a last row cut short
  // by a crash goes too), and new rows are appended. Without an existing file, as the constructor. Throws UserError naming the path
  // when the file cannot be read or rewritten.
  static CsvSink continued(std::filesystem::path path, std::int64_t step);

  std::string_view name() const override { return "csv"; }
  // Appends a row (rewriting the file first when new keys appear). Throws UserError on I/O errors.
  void write(std::span<const LogEntry> entries, std::int64_t step) override;

  const std::filesystem::path& path() const { return path_; }
  const std::vector<std::string>& columns() const { return columns_; }

 private:
  CsvSink(std::filesystem::path path, const std::string& content, std::int64_t step);
  void rewrite_with_columns(std::size_t old_count);
  // Writes `text` to a sibling and renames it over the file: a crash leaves the old one whole.
  void replace_contents(const std::string& text);

  std::filesystem::path path_;
  std::vector<std::string> columns_;  // header order
};

}  // namespace rlzoo
