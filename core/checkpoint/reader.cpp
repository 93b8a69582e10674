#include "core/checkpoint/reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>

#include <fmt/format.h>

#include "core/checkpoint/durable_io.h"
#include "core/checkpoint/manifest.h"
#include "core/common/crc32c.h"
#include "core/common/error.h"
#include "core/common/strings.h"

namespace rlzoo {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void fail(const fs::path& dir, std::string_view what) {
  throw UserError(fmt::format("checkpoint {}: {}", dir.string(), what));
}

// Compares what was found on disk with what the manifest recorded.
void check_contents(const fs::path& dir, std::string_view name, std::uint64_t expected_size,
                    std::uint32_t expected_crc, std::uint64_t found_size, std::uint32_t found_crc) {
  if (found_size < expected_size)
    fail(dir, fmt::format("{} is truncated: expected {} bytes, found {}", name, expected_size, found_size));
  if (found_size > expected_size)
    fail(dir, fmt::format("{} is longer than recorded: expected {} bytes, found {}", name, expected_size,
                          found_size));
  if (found_crc != expected_crc)
    fail(dir, fmt::format("{} is corrupted: CRC-32C is {}, manifest.json says {}", name,
                          checkpoint::format_crc(found_crc), checkpoint::format_crc(expected_crc)));
}

// Size and CRC of a file, streamed so that large files (replay buffers) are not held in memory.
std::pair<std::uint64_t, std::uint32_t> scan_file(const fs::path& dir, std::string_view name) {
  const fs::path path = dir / name;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    if (err == ENOENT) fail(dir, fmt::format("{} is missing (it is listed in manifest.json)", name));
    fail(dir, fmt::format("cannot open {}: {}", name, std::strerror(err)));
  }
  const std::unique_ptr<int, void (*)(int*)> closer(new int(fd), [](int* p) {
    ::close(*p);
    delete p;
  });
  struct stat st {};
  if (::fstat(fd, &st) != 0) fail(dir, fmt::format("cannot stat {}: {}", name, std::strerror(errno)));
  if (!S_ISREG(st.st_mode)) fail(dir, fmt::format("{} is not a regular file", name));
  std::uint64_t size = 0;
  std::uint32_t crc = 0;
  std::vector<char> buf(1 << 20);
  for (;;) {
    const ssize_t n = ::read(fd, buf.data(), buf.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      fail(dir, fmt::format("cannot read {}: {}", name, std::strerror(errno)));
    }
    if (n == 0) break;
    crc = crc32c(buf.data(), static_cast<std::size_t>(n), crc);
    size += static_cast<std::uint64_t>(n);
  }
  return {size, crc};
}

using JsonTest = bool (nlohmann::json::*)() const noexcept;

// obj[key], which must pass `test` (e.g. &json::is_string); `expected` says what it should be.
const nlohmann::json& field(const fs::path& dir, const nlohmann::json& obj, const char* key, JsonTest test,
                            std::string_view expected, std::string_view where = "") {
  const auto it = obj.find(key);
  if (it == obj.end()) fail(dir, fmt::format("manifest.json: {}{} is missing", where, key));
  if (!((*it).*test)())
    fail(dir, fmt::format("manifest.json: {}{} must be {}, found {}", where, key, expected, it->dump()));
  return *it;
}

}  // namespace

CheckpointReader CheckpointReader::open(const fs::path& dir) {
  using J = nlohmann::json;
  CheckpointReader r;
  r.dir_ = dir;
  std::error_code ec;
  const fs::file_status st = fs::status(dir, ec);
  if (!fs::exists(st)) fail(dir, "the directory does not exist");
  if (!fs::is_directory(st)) fail(dir, "it is not a directory");

  const fs::path manifest_path = dir / checkpoint::kManifestName;
  if (!fs::exists(fs::symlink_status(manifest_path, ec)))
    fail(dir, "manifest.json is missing (an unfinished save, or not an rlzoo checkpoint)");
  std::string text;
  try {
    text = durable::read_file(manifest_path);
  } catch (const UserError& e) {
    fail(dir, fmt::format("manifest.json cannot be read ({})", e.what()));
  }
  try {
    r.manifest_ = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {  // parse_error, and out_of_range for numbers too large
    fail(dir, fmt::format("manifest.json is not valid JSON: {}", e.what()));
  }
  if (!r.manifest_.is_object()) fail(dir, "manifest.json must hold a JSON object");

  const auto version = field(dir, r.manifest_, "format_version", &J::is_number_integer, "an integer").get<std::int64_t>();
  if (version < 1 || version > checkpoint::kFormatVersion)
    fail(dir, fmt::format("manifest.json has format_version {}; this rlzoo ({}) reads versions 1 to {}", version,
                          RLZOO_VERSION, checkpoint::kFormatVersion));
  field(dir, r.manifest_, "rlzoo_version", &J::is_string, "a string");
  field(dir, r.manifest_, "created_at", &J::is_string, "a string");
  field(dir, r.manifest_, "metadata", &J::is_object, "an object");
  const J& files = field(dir, r.manifest_, "files", &J::is_object, "an object");

  for (const auto& [name, desc] : files.items()) {
    if (const std::string why = checkpoint::invalid_file_name_reason(name); !why.empty())
      fail(dir, fmt::format("manifest.json lists an invalid file name '{}': {}", name, why));
    if (!desc.is_object()) fail(dir, fmt::format("manifest.json: files.{} must be an object", name));
    const std::string where = fmt::format("files.{}.", name);
    const auto size = field(dir, desc, "size", &J::is_number_unsigned, "a byte count", where).get<std::uint64_t>();
    const auto crc_text = field(dir, desc, "crc32c", &J::is_string, "a string", where).get<std::string>();
    const auto crc = checkpoint::parse_crc(crc_text);
    if (!crc) fail(dir, fmt::format("manifest.json: {}crc32c '{}' is not 8 hex digits", where, crc_text));
    r.entries_.push_back({name, Entry{size, *crc}});
  }
  std::sort(r.entries_.begin(), r.entries_.end(), [](const auto& a, const auto& b) { return a.first < b.first; });

  for (const auto& [name, e] : r.entries_) {
    const auto [found_size, found_crc] = scan_file(dir, name);
    check_contents(dir, name, e.size, e.crc, found_size, found_crc);
  }
  return r;
}

bool CheckpointReader::has(std::string_view name) const {
  return std::any_of(entries_.begin(), entries_.end(), [&](const auto& e) { return e.first == name; });
}

std::vector<std::string> CheckpointReader::names() const {
  std::vector<std::string> out;
  out.reserve(entries_.size());
  for (const auto& e : entries_) out.push_back(e.first);
  return out;
}

const CheckpointReader::Entry& CheckpointReader::entry(std::string_view name) const {
  for (const auto& e : entries_)
    if (e.first == name) return e.second;
  fail(dir_, fmt::format("it has no file '{}'{} (files: {})", name, did_you_mean(name, names()),
                         entries_.empty() ? "none" : join(names())));
}

std::uint64_t CheckpointReader::size(std::string_view name) const { return entry(name).size; }

std::string CheckpointReader::read(std::string_view name) const {
  const Entry& e = entry(name);
  std::string bytes;
  try {
    bytes = durable::read_file(dir_ / name);
  } catch (const UserError& err) {
    if (!fs::exists(dir_ / name)) fail(dir_, fmt::format("{} is missing (it is listed in manifest.json)", name));
    fail(dir_, err.what());
  }
  check_contents(dir_, name, e.size, e.crc, bytes.size(), crc32c(bytes.data(), bytes.size()));
  return bytes;
}

nlohmann::json CheckpointReader::read_json(std::string_view name) const {
  const std::string text = read(name);
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {  // parse_error, and out_of_range for numbers too large
    fail(dir_, fmt::format("{} is not valid JSON: {}", name, e.what()));
  }
}

}  // namespace rlzoo
