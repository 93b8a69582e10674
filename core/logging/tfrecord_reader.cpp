#include "core/logging/tfrecord_reader.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "core/common/crc32c.h"
#include "core/common/error.h"
#include "core/logging/tfrecord.h"

namespace rlzoo {

TfRecordScan parse_tfrecords(std::string_view bytes, std::string_view source) {
  const auto* base = reinterpret_cast<const unsigned char*>(bytes.data());
  const std::uint64_t size = bytes.size();
  TfRecordScan scan;
  std::uint64_t offset = 0;
  for (std::size_t index = 0; offset < size; ++index) {
    const std::uint64_t left = size - offset;
    auto truncate = [&](std::uint64_t need) {
      scan.truncated = true;
      scan.truncated_offset = offset;
      scan.truncation_message =
          fmt::format("{}: incomplete record {} at offset {} (have {} of {} bytes); ignored", source,
                      index, offset, left, need);
    };
    if (left < kTfRecordHeaderBytes) {
      truncate(kTfRecordHeaderBytes);
      break;
    }
    const unsigned char* p = base + offset;
    const std::uint64_t length = load_le64(p);
    const std::uint32_t stored_length_crc = load_le32(p + 8);
    const std::uint32_t length_crc = masked_crc32c(p, 8);
    // The length cannot be trusted (not even to decide "truncated") until its own CRC matches.
    if (stored_length_crc != length_crc) {
      throw UserError(fmt::format(
          "{}: bad length CRC in record {} at offset {} (stored 0x{:08x}, computed 0x{:08x}); the "
          "event file is corrupt",
          source, index, offset, stored_length_crc, length_crc));
    }
    if (length > left - kTfRecordHeaderBytes ||
        left - kTfRecordHeaderBytes - length < kTfRecordFooterBytes) {
      // Saturate so a huge (but CRC-valid) length cannot overflow the message's arithmetic.
      const std::uint64_t framing = kTfRecordHeaderBytes + kTfRecordFooterBytes;
      truncate(length > UINT64_MAX - framing ? UINT64_MAX : length + framing);
      break;
    }
    const unsigned char* data = p + kTfRecordHeaderBytes;
    const std::uint32_t stored_data_crc = load_le32(data + length);
    const std::uint32_t data_crc = masked_crc32c(data, length);
    if (stored_data_crc != data_crc) {
      throw UserError(fmt::format(
          "{}: bad data CRC in record {} at offset {} ({} data bytes at offset {}; stored 0x{:08x}, "
          "computed 0x{:08x}); the event file is corrupt",
          source, index, offset, length, offset + kTfRecordHeaderBytes, stored_data_crc, data_crc));
    }
    scan.records.push_back({offset, std::string(reinterpret_cast<const char*>(data), length)});
    offset += kTfRecordHeaderBytes + length + kTfRecordFooterBytes;
  }
  if (!scan.truncated) scan.truncated_offset = offset;
  return scan;
}

TfRecordScan read_tfrecords(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UserError(fmt::format("cannot open event file '{}': {}", path.string(), std::strerror(errno)));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) throw UserError(fmt::format("cannot read event file '{}'", path.string()));
  return parse_tfrecords(buffer.view(), path.string());
}

EventFile read_event_file(const std::filesystem::path& path) {
  TfRecordScan scan = read_tfrecords(path);
  EventFile file;
  file.path = path;
  file.truncated = scan.truncated;
  file.truncated_offset = scan.truncated_offset;
  file.truncation_message = std::move(scan.truncation_message);
  file.events.reserve(scan.records.size());
  file.offsets.reserve(scan.records.size());
  for (std::size_t i = 0; i < scan.records.size(); ++i) {
    tensorboard::Event event;
    if (!event.ParseFromString(scan.records[i].data)) {
      throw UserError(fmt::format("{}: record {} at offset {} has valid CRCs but is not an Event message",
                                  path.string(), i, scan.records[i].offset));
    }
    file.events.push_back(std::move(event));
    file.offsets.push_back(scan.records[i].offset);
  }
  return file;
}

std::vector<ScalarPoint> scalar_points(const std::vector<tensorboard::Event>& events, std::string_view tag) {
  std::vector<ScalarPoint> points;
  for (const tensorboard::Event& event : events) {
    if (!event.has_summary()) continue;
    for (const tensorboard::Summary::Value& value : event.summary().value()) {
      if (!value.has_simple_value()) continue;
      if (!tag.empty() && value.tag() != tag) continue;
      points.push_back({value.tag(), event.step(), event.wall_time(), value.simple_value()});
    }
  }
  return points;
}

std::vector<std::filesystem::path> find_event_files(const std::filesystem::path& log_dir) {
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  std::error_code ec;
  if (!fs::is_directory(log_dir, ec)) return files;
  for (fs::recursive_directory_iterator it(log_dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_regular_file(ec) && it->path().filename().string().find("tfevents") != std::string::npos)
      files.push_back(it->path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace rlzoo
