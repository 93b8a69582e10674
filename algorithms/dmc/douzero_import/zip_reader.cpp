#include "algorithms/dmc/douzero_import/zip_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <utility>

#include <fmt/format.h>

#include "core/common/error.h"

namespace rlzoo {

namespace {

// Record signatures and fixed sizes (APPNOTE.TXT, sections 4.3.7 to 4.3.16).
constexpr std::uint32_t kLocalHeaderSig = 0x04034b50;
constexpr std::uint32_t kCentralHeaderSig = 0x02014b50;
constexpr std::uint32_t kEocdSig = 0x06054b50;
constexpr std::uint32_t kZip64EocdSig = 0x06064b50;
constexpr std::uint32_t kZip64LocatorSig = 0x07064b50;
constexpr std::size_t kLocalHeaderSize = 30;
constexpr std::size_t kCentralHeaderSize = 46;
constexpr std::size_t kEocdSize = 22;
constexpr std::size_t kZip64EocdSize = 56;
constexpr std::size_t kZip64LocatorSize = 20;
constexpr std::size_t kMaxCommentSize = 0xffff;

std::uint64_t load_le(const unsigned char* p, std::size_t n) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < n; ++i) v |= std::uint64_t{p[i]} << (8 * i);
  return v;
}
std::uint16_t u16(const unsigned char* p) { return static_cast<std::uint16_t>(load_le(p, 2)); }
std::uint32_t u32(const unsigned char* p) { return static_cast<std::uint32_t>(load_le(p, 4)); }
std::uint64_t u64(const unsigned char* p) { return load_le(p, 8); }

// CRC-32 as zip uses it (reflected polynomial 0xEDB88320).
constexpr std::array<std::uint32_t, 256> kCrcTable = [] {
  std::array<std::uint32_t, 256> t{};
  for (std::uint32_t i = 0; i < 256; ++i) {
    std::uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    t[i] = c;
  }
  return t;
}();

std::uint32_t crc32(const std::byte* data, std::size_t n) {
  std::uint32_t c = 0xffffffffu;
  for (std::size_t i = 0; i < n; ++i) c = kCrcTable[(c ^ static_cast<std::uint8_t>(data[i])) & 0xff] ^ (c >> 8);
  return c ^ 0xffffffffu;
}

std::string method_name(std::uint16_t method) {
  switch (method) {
    case 8: return "8 (deflate)";
    case 9: return "9 (deflate64)";
    case 12: return "12 (bzip2)";
    case 14: return "14 (lzma)";
    case 93: return "93 (zstd)";
    default: return std::to_string(method);
  }
}

}  // namespace

ZipReader::ZipReader(std::string path) : path_(std::move(path)) {
  fd_ = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) throw UserError(fmt::format("{}: cannot open: {}", path_, std::strerror(errno)));
  try {
    struct stat st {};
    if (::fstat(fd_, &st) != 0) throw UserError(fmt::format("{}: cannot stat: {}", path_, std::strerror(errno)));
    if (!S_ISREG(st.st_mode)) throw UserError(fmt::format("{}: not a regular file", path_));
    file_size_ = static_cast<std::uint64_t>(st.st_size);
    read_central_directory();
  } catch (...) {
    ::close(fd_);
    fd_ = -1;
    throw;
  }
}

ZipReader::~ZipReader() {
  if (fd_ >= 0) ::close(fd_);
}

ZipReader::ZipReader(ZipReader&& other) noexcept
    : path_(std::move(other.path_)),
      fd_(std::exchange(other.fd_, -1)),
      file_size_(other.file_size_),
      entries_(std::move(other.entries_)) {}

ZipReader& ZipReader::operator=(ZipReader&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    path_ = std::move(other.path_);
    fd_ = std::exchange(other.fd_, -1);
    file_size_ = other.file_size_;
    entries_ = std::move(other.entries_);
  }
  return *this;
}

void ZipReader::check_range(std::uint64_t offset, std::uint64_t n, std::string_view what) const {
  if (offset > file_size_ || n > file_size_ - offset)
    throw UserError(fmt::format("{}: truncated zip archive: {} needs bytes {}..{}, the file has {} bytes", path_, what,
                                offset, offset + n, file_size_));
}

void ZipReader::read_at(std::uint64_t offset, void* out, std::size_t n, std::string_view what) const {
  check_range(offset, n, what);
  auto* dst = static_cast<char*>(out);
  std::size_t done = 0;
  while (done < n) {
    const ssize_t got = ::pread(fd_, dst + done, n - done, static_cast<off_t>(offset + done));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) throw UserError(fmt::format("{}: cannot read {}: {}", path_, what, std::strerror(errno)));
    if (got == 0) throw UserError(fmt::format("{}: truncated while reading {} (the file shrank?)", path_, what));
    done += static_cast<std::size_t>(got);
  }
}

void ZipReader::read_central_directory() {
  // The end-of-central-directory record is the last 22 bytes, unless an archive comment follows.
  const std::size_t tail_size =
      static_cast<std::size_t>(std::min<std::uint64_t>(file_size_, kEocdSize + kMaxCommentSize));
  std::vector<unsigned char> tail(tail_size);
  read_at(file_size_ - tail_size, tail.data(), tail_size, "the end of the file");
  std::size_t pos = std::string::npos;
  for (std::size_t i = tail_size >= kEocdSize ? tail_size - kEocdSize + 1 : 0; i-- > 0;) {
    if (u32(&tail[i]) == kEocdSig && i + kEocdSize + u16(&tail[i + 20]) <= tail_size) {
      pos = i;
      break;
    }
  }
  if (pos == std::string::npos) {
    unsigned char head[4] = {};
    if (file_size_ >= sizeof head) read_at(0, head, sizeof head, "the first bytes");
    if (u32(head) == kLocalHeaderSig)
      throw UserError(fmt::format("{}: truncated or damaged zip archive: it starts with a zip entry but has no "
                                  "end-of-central-directory record",
                                  path_));
    throw UserError(fmt::format("{}: not a zip archive (no end-of-central-directory record)", path_));
  }
  const unsigned char* eocd = &tail[pos];
  const std::uint64_t eocd_offset = file_size_ - tail_size + pos;
  std::uint64_t disk = u16(eocd + 4), cd_disk = u16(eocd + 6), count = u16(eocd + 10);
  std::uint64_t cd_size = u32(eocd + 12), cd_offset = u32(eocd + 16);

  // A zip64 locator sits just before the EOCD; when present its record has the real values.
  if (eocd_offset >= kZip64LocatorSize) {
    unsigned char loc[kZip64LocatorSize];
    read_at(eocd_offset - kZip64LocatorSize, loc, sizeof loc, "the zip64 locator");
    if (u32(loc) == kZip64LocatorSig) {
      unsigned char rec[kZip64EocdSize];
      read_at(u64(loc + 8), rec, sizeof rec, "the zip64 end-of-central-directory record");
      if (u32(rec) != kZip64EocdSig)
        throw UserError(fmt::format("{}: damaged zip archive: bad zip64 end-of-central-directory record", path_));
      disk = u32(rec + 16);
      cd_disk = u32(rec + 20);
      count = u64(rec + 32);
      cd_size = u64(rec + 40);
      cd_offset = u64(rec + 48);
    }
  }
  if (disk != 0 || cd_disk != 0)
    throw UserError(fmt::format("{}: multi-disk (split) zip archives are not supported", path_));
  if (count > cd_size / kCentralHeaderSize)
    throw UserError(fmt::format("{}: damaged zip archive: {} entries cannot fit a {}-byte central directory", path_,
                                count, cd_size));

  check_range(cd_offset, cd_size, "the central directory");  // before allocating what it claims
  std::vector<unsigned char> cd(static_cast<std::size_t>(cd_size));
  read_at(cd_offset, cd.data(), cd.size(), "the central directory");
  std::size_t p = 0;
  entries_.reserve(static_cast<std::size_t>(count));
  for (std::uint64_t i = 0; i < count; ++i) {
    const auto damaged = [&](std::string_view why) {
      return UserError(fmt::format("{}: damaged zip archive: central directory entry {}: {}", path_, i, why));
    };
    if (cd.size() - p < kCentralHeaderSize) throw damaged("runs past the end of the central directory");
    const unsigned char* h = &cd[p];
    if (u32(h) != kCentralHeaderSig) throw damaged("bad signature");
    const std::size_t name_len = u16(h + 28), extra_len = u16(h + 30), comment_len = u16(h + 32);
    if (cd.size() - p - kCentralHeaderSize < name_len + extra_len + comment_len)
      throw damaged("runs past the end of the central directory");
    Entry e;
    e.flags = u16(h + 8);
    e.method = u16(h + 10);
    e.crc32 = u32(h + 16);
    e.compressed_size = u32(h + 20);
    e.size = u32(h + 24);
    e.local_header_offset = u32(h + 42);
    e.name.assign(reinterpret_cast<const char*>(h + kCentralHeaderSize), name_len);
    // Zip64 extended information (id 1): only the fields whose 32-bit value is 0xFFFFFFFF, in order.
    const unsigned char* x = h + kCentralHeaderSize + name_len;
    for (std::size_t k = 0; k + 4 <= extra_len;) {
      const std::uint16_t id = u16(x + k), len = u16(x + k + 2);
      if (k + 4 + len > extra_len) throw damaged("bad extra field");
      if (id == 1) {
        std::size_t q = k + 4;
        for (std::uint64_t* field : {&e.size, &e.compressed_size, &e.local_header_offset}) {
          if (*field != 0xffffffffu) continue;
          if (q + 8 > k + 4 + len) throw damaged("short zip64 extra field");
          *field = u64(x + q);
          q += 8;
        }
      }
      k += 4 + len;
    }
    entries_.push_back(std::move(e));
    p += kCentralHeaderSize + name_len + extra_len + comment_len;
  }
}

const ZipReader::Entry* ZipReader::find(std::string_view name) const {
  const auto it = std::find_if(entries_.begin(), entries_.end(), [&](const Entry& e) { return e.name == name; });
  return it == entries_.end() ? nullptr : &*it;
}

std::vector<std::byte> ZipReader::read(std::string_view name) const {
  const Entry* e = find(name);
  if (e == nullptr) throw UserError(fmt::format("{}: no entry named '{}' in the zip archive", path_, name));
  return read(*e);
}

std::vector<std::byte> ZipReader::read(const Entry& e) const {
  if (e.flags & 1) throw UserError(fmt::format("{}: entry '{}' is encrypted, which is not supported", path_, e.name));
  if (e.method != 0)
    throw UserError(fmt::format("{}: entry '{}' uses compression method {}; only stored (uncompressed) entries are "
                                "supported",
                                path_, e.name, method_name(e.method)));
  if (e.compressed_size != e.size)
    throw UserError(fmt::format("{}: damaged zip archive: stored entry '{}' has size {} but compressed size {}", path_,
                                e.name, e.size, e.compressed_size));
  const std::string what = fmt::format("entry '{}'", e.name);
  unsigned char h[kLocalHeaderSize];
  read_at(e.local_header_offset, h, sizeof h, what);
  if (u32(h) != kLocalHeaderSig)
    throw UserError(fmt::format("{}: damaged zip archive: entry '{}' has no local header at offset {}", path_, e.name,
                                e.local_header_offset));
  // The local header's own name and extra lengths may differ from the central directory's.
  const std::uint64_t data_offset = e.local_header_offset + kLocalHeaderSize + u16(h + 26) + u16(h + 28);
  check_range(data_offset, e.size, what);
  std::vector<std::byte> out(static_cast<std::size_t>(e.size));
  read_at(data_offset, out.data(), out.size(), what);
  const std::uint32_t crc = crc32(out.data(), out.size());
  if (crc != e.crc32)
    throw UserError(fmt::format("{}: entry '{}' is corrupted: its CRC-32 is {:08x}, the zip directory says {:08x}",
                                path_, e.name, crc, e.crc32));
  return out;
}

}  // namespace rlzoo
