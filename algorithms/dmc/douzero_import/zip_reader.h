// Read-only access to the STORED (uncompressed) entries of a zip archive, such as the
// checkpoints that torch.save writes. Entries are found through the central directory, because
// writers that stream (torch.save, with data descriptors) leave the sizes in the local headers
// at 0. Zip64 records are understood; multi-disk archives, compression and encryption are not.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace rlzoo {

class ZipReader {
 public:
  struct Entry {
    std::string name;
    std::uint64_t size = 0;             // uncompressed bytes
    std::uint64_t compressed_size = 0;  // equals size for STORED entries
    std::uint64_t local_header_offset = 0;
    std::uint16_t method = 0;  // 0 = stored, 8 = deflate, ...
    std::uint16_t flags = 0;   // general-purpose bit flags (bit 0: encrypted)
    std::uint32_t crc32 = 0;   // CRC-32 (IEEE) of the uncompressed bytes
  };

  // Opens `path` and reads its central directory (not the entries' data). Throws UserError
  // "<path>: <problem>": the file cannot be opened, is not a zip archive, is truncated, spans
  // several disks, or its central directory is malformed.
  explicit ZipReader(std::string path);
  ~ZipReader();
  ZipReader(ZipReader&& other) noexcept;
  ZipReader& operator=(ZipReader&& other) noexcept;
  ZipReader(const ZipReader&) = delete;
  ZipReader& operator=(const ZipReader&) = delete;

  const std::string& path() const { return path_; }
  // In central-directory order.
  const std::vector<Entry>& entries() const { return entries_; }
  // nullptr when there is no entry of that name.
  const Entry* find(std::string_view name) const;

  // An entry's bytes, checked against its CRC-32. Throws UserError naming the archive and the
  // entry when it is compressed or encrypted, when its data runs past the end of the file, or
  // when the CRC does not match. Safe to call from several threads (positional reads).
  std::vector<std::byte> read(const Entry& entry) const;
  // Same, by name; throws UserError when there is no such entry.
  std::vector<std::byte> read(std::string_view name) const;

 private:
  // Throws UserError "truncated zip archive" unless bytes [offset, offset + n) are in the file.
  void check_range(std::uint64_t offset, std::uint64_t n, std::string_view what) const;
  void read_at(std::uint64_t offset, void* out, std::size_t n, std::string_view what) const;
  void read_central_directory();

  std::string path_;
  int fd_ = -1;
  std::uint64_t file_size_ = 0;
  std::vector<Entry> entries_;
};

}  // namespace rlzoo
