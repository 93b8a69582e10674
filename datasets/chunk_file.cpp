#include "datasets/chunk_file.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fmt/format.h>
#include <limits>

#include "core/checkpoint/durable_io.h"
#include "core/common/crc32c.h"
#include "core/common/error.h"
#include "core/logging/tfrecord.h"

namespace rlzoo::data {

namespace fs = std::filesystem;

namespace {
constexpr std::size_t kStreamBuffer = 1 << 20;
}

ChunkWriter::ChunkWriter(fs::path path) : path_(std::move(path)) {
  file_.reset(std::fopen(path_.c_str(), "wbx"));  // "x": fail if it exists
  if (!file_) durable::throw_os_error("cannot create", path_, errno);
  std::setvbuf(file_.get(), nullptr, _IOFBF, kStreamBuffer);
  if (std::fwrite(kChunkMagic.data(), 1, kChunkMagic.size(), file_.get()) != kChunkMagic.size())
    durable::throw_os_error("cannot write", path_, errno);
  bytes_ = kChunkMagic.size();
}

void ChunkWriter::append(std::string_view payload) {
  RLZOO_CHECK(file_ != nullptr, "append to a closed chunk " + path_.string());
  if (payload.size() > std::numeric_limits<std::uint32_t>::max())
    throw UserError(fmt::format("{}: a record of {} bytes does not fit the 4 GiB record limit", path_.string(),
                                payload.size()));
  unsigned char header[kRecordHeaderBytes];
  store_le32(header, static_cast<std::uint32_t>(payload.size()));
  store_le32(header + 4, crc32c(payload.data(), payload.size()));
  if (std::fwrite(header, 1, sizeof header, file_.get()) != sizeof header ||
      std::fwrite(payload.data(), 1, payload.size(), file_.get()) != payload.size())
    durable::throw_os_error("cannot write", path_, errno);
  bytes_ += sizeof header + payload.size();
}

void ChunkWriter::close() {
  if (!file_) return;
  std::FILE* f = file_.release();
  if (std::fflush(f) != 0) {
    const int err = errno;
    std::fclose(f);
    durable::throw_os_error("cannot write", path_, err);
  }
  if (::fsync(::fileno(f)) != 0) {
    const int err = errno;
    std::fclose(f);
    durable::throw_os_error("cannot fsync", path_, err);
  }
  if (std::fclose(f) != 0) durable::throw_os_error("cannot close", path_, errno);
}

ChunkReader::ChunkReader(fs::path path) : path_(std::move(path)) {
  file_.reset(std::fopen(path_.c_str(), "rb"));
  if (!file_) durable::throw_os_error("cannot open", path_, errno);
  std::setvbuf(file_.get(), nullptr, _IOFBF, kStreamBuffer);
  std::error_code ec;
  size_ = fs::file_size(path_, ec);
  if (ec) throw UserError(fmt::format("cannot read the size of {}: {}", path_.string(), ec.message()));
  char magic[kChunkMagic.size()];
  const std::size_t got = std::fread(magic, 1, sizeof magic, file_.get());
  if (got != sizeof magic || std::string_view(magic, sizeof magic) != kChunkMagic)
    fail_at(0, fmt::format("bad magic: expected \"{}\" (an rlzoo dataset chunk){}", kChunkMagic,
                           got != sizeof magic ? fmt::format(", the file has {} bytes", size_) : ""));
  offset_ = record_offset_ = sizeof magic;
}

void ChunkReader::fail_at(std::uint64_t offset, const std::string& what) const {
  throw UserError(fmt::format("{}: byte offset {}: {}", path_.string(), offset, what));
}

void ChunkReader::fail(const std::string& what) const { fail_at(record_offset_, what); }

bool ChunkReader::next(std::string& payload) {
  record_offset_ = offset_;
  if (offset_ == size_) return false;
  const std::uint64_t left = size_ - offset_;
  if (left < kRecordHeaderBytes)
    fail_at(offset_, fmt::format("truncated record: {} bytes left, a record header needs {}", left, kRecordHeaderBytes));
  unsigned char header[kRecordHeaderBytes];
  if (std::fread(header, 1, sizeof header, file_.get()) != sizeof header) durable::throw_os_error("cannot read", path_, errno);
  const std::uint32_t length = load_le32(header);
  const std::uint32_t stored_crc = load_le32(header + 4);
  if (length > left - kRecordHeaderBytes)
    fail_at(offset_, fmt::format("truncated record: its header announces {} payload bytes, {} follow", length,
                                 left - kRecordHeaderBytes));
  payload.resize(length);
  if (length > 0 && std::fread(payload.data(), 1, length, file_.get()) != length)
    durable::throw_os_error("cannot read", path_, errno);
  const std::uint32_t crc = crc32c(payload.data(), payload.size());
  if (crc != stored_crc)
    fail_at(offset_, fmt::format("CRC mismatch: the record's payload has CRC-32C {:08x}, its header says {:08x} "
                                 "(the data is corrupt)", crc, stored_crc));
  offset_ += kRecordHeaderBytes + length;
  return true;
}

}  // namespace rlzoo::data
