#include "core/checkpoint/manifest.h"

#include <chrono>
#include <ctime>

#include <fmt/format.h>

namespace rlzoo::checkpoint {

std::string invalid_file_name_reason(std::string_view name) {
  if (name.empty()) return "the name is empty";
  if (name.find('/') != std::string_view::npos) return "a name may not contain '/'";
  if (name.find('\0') != std::string_view::npos) return "a name may not contain a NUL byte";
  if (name.front() == '.') return "a name may not start with '.'";
  if (name == kManifestName) return "the name is reserved for the manifest";
  return "";
}

std::string format_crc(std::uint32_t crc) { return fmt::format("{:08x}", crc); }

std::optional<std::uint32_t> parse_crc(std::string_view text) {
  if (text.size() != 8) return std::nullopt;
  std::uint32_t value = 0;
  for (char c : text) {
    std::uint32_t digit;
    if (c >= '0' && c <= '9') digit = static_cast<std::uint32_t>(c - '0');
    else if (c >= 'a' && c <= 'f') digit = static_cast<std::uint32_t>(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F') digit = static_cast<std::uint32_t>(c - 'A' + 10);
    else return std::nullopt;
    value = value << 4 | digit;
  }
  return value;
}

std::string utc_timestamp() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  ::gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace rlzoo::checkpoint
