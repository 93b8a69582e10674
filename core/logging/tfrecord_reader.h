// Reading TFRecord / TensorBoard event files back: every record's length CRC and data CRC is
// verified. A partly written last record (a live writer, or a crash mid-write) is tolerated and
// reported; any CRC mismatch is corruption and throws.
//
// Used by our tests and by users who want their scalars back without Python (e.g. to compare
// runs or plot from C++).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "core/logging/proto/event.pb.h"  // generated

namespace rlzoo {

// One record's payload and where its framing starts in the file.
struct TfRecord {
  std::uint64_t offset = 0;
  std::string data;
};

// Every whole record of a file, in order.
struct TfRecordScan {
  std::vector<TfRecord> records;
  // True when the bytes end inside a record: that record is left out. Expected while a writer
  // is still appending, or after a crash mid-write; never caused by a CRC mismatch.
  bool truncated = false;
  // Where the incomplete record starts (== the offset just past the last whole record).
  std::uint64_t truncated_offset = 0;
  // "<source>: incomplete record at offset N (have A of B bytes); ignored", empty if whole.
  std::string truncation_message;
};

// Splits `bytes` into records. `source` names the bytes in messages (usually the file path).
// Throws UserError naming `source`, the record index and its byte offset when a length CRC or a
// data CRC does not match.
TfRecordScan parse_tfrecords(std::string_view bytes, std::string_view source);

// parse_tfrecords over a whole file. Throws UserError when the file cannot be read.
TfRecordScan read_tfrecords(const std::filesystem::path& path);

// An event file parsed into Events.
struct EventFile {
  std::filesystem::path path;
  std::vector<tensorboard::Event> events;
  std::vector<std::uint64_t> offsets;  // offsets[i]: where events[i]'s record starts
  bool truncated = false;              // see TfRecordScan
  std::uint64_t truncated_offset = 0;
  std::string truncation_message;
};

// Reads and verifies an event file. Throws UserError (file and offset in the message) on a bad
// CRC or on a record that is not a valid Event.
EventFile read_event_file(const std::filesystem::path& path);

// A scalar as TensorBoard plots it.
struct ScalarPoint {
  std::string tag;
  std::int64_t step = 0;
  double wall_time = 0;
  float value = 0;
};

// The simple_value scalars in `events`, in file order; only those tagged `tag` unless it is
// empty.
std::vector<ScalarPoint> scalar_points(const std::vector<tensorboard::Event>& events,
                                       std::string_view tag = {});

// Event files under `log_dir`, searched recursively the way TensorBoard does (any regular file
// whose name contains "tfevents"), sorted by path. Empty when the directory does not exist.
std::vector<std::filesystem::path> find_event_files(const std::filesystem::path& log_dir);

}  // namespace rlzoo
