// The framing of a dataset chunk file (docs/datasets.md):
//
//   "RLZDCHK1"                                  8-byte magic
//   then records, each
//     uint32  payload length                    little-endian
//     uint32  CRC-32C of the payload            little-endian, unmasked
//     byte    payload[length]                   a serialized rlzoo.data.Episode
//
// Records are self-delimiting, so a chunk streams: written by appending, read front to back.
#pragma once

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

namespace rlzoo::data {

inline constexpr std::string_view kChunkMagic = "RLZDCHK1";
inline constexpr std::size_t kRecordHeaderBytes = 8;

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using FilePtr = std::unique_ptr<std::FILE, FileCloser>;

// Appends records to a new chunk file. The file must not exist yet.
class ChunkWriter {
 public:
  explicit ChunkWriter(std::filesystem::path path);  // creates the file and writes the magic
  ChunkWriter(const ChunkWriter&) = delete;
  ChunkWriter& operator=(const ChunkWriter&) = delete;
  // The destructor closes without syncing when close() was not called.

  void append(std::string_view payload);
  std::uint64_t bytes() const { return bytes_; }  // file size so far, magic included
  // Flushes, fsyncs and closes. Throws UserError naming the file when a step fails.
  void close();

 private:
  std::filesystem::path path_;
  FilePtr file_;
  std::uint64_t bytes_ = 0;
};

// Reads the records of a chunk file in order and checks the magic, the framing and the CRCs.
// Errors are UserErrors "<file>: byte offset <n>: <what>", n being where the bad part starts.
class ChunkReader {
 public:
  explicit ChunkReader(std::filesystem::path path);  // opens the file and checks the magic
  ChunkReader(const ChunkReader&) = delete;
  ChunkReader& operator=(const ChunkReader&) = delete;

  // The next record's payload into `payload`; false at the end of the file (after a whole record).
  bool next(std::string& payload);
  // Where the record last returned by next() starts; after next() returned false, the file size.
  std::uint64_t record_offset() const { return record_offset_; }
  const std::filesystem::path& path() const { return path_; }
  // "<file>: byte offset <record_offset()>: <what>"
  [[noreturn]] void fail(const std::string& what) const;

 private:
  [[noreturn]] void fail_at(std::uint64_t offset, const std::string& what) const;

  std::filesystem::path path_;
  FilePtr file_;
  std::uint64_t size_ = 0;
  std::uint64_t offset_ = 0;
  std::uint64_t record_offset_ = 0;
};

}  // namespace rlzoo::data
