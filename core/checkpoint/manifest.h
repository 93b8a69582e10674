// The manifest.json of a checkpoint directory, shared by CheckpointWriter and CheckpointReader.
//
//   {
//     "format_version": 1,
//     "rlzoo_version": "0.1.0",
//     "created_at": "2024-05-01T12:34:56Z",          (UTC)
//     "metadata": { ...caller's JSON object... },
//     "files": { "model.pt": { "size": 1234, "crc32c": "e3069283" }, ... }
//   }
//
// The manifest is written last: a directory without one is an unfinished checkpoint.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace rlzoo::checkpoint {

inline constexpr int kFormatVersion = 1;
inline constexpr std::string_view kManifestName = "manifest.json";

// Why `name` cannot be a checkpoint file name, or "" when it can. Names are single path
// components: not empty, no '/' or NUL, not starting with '.', not the manifest itself. The
// reader applies the same rule to names found in a manifest, so a crafted manifest cannot point
// outside the checkpoint directory.
std::string invalid_file_name_reason(std::string_view name);

// CRC-32C as 8 lowercase hex digits, and back (nullopt unless exactly 8 hex digits).
std::string format_crc(std::uint32_t crc);
std::optional<std::uint32_t> parse_crc(std::string_view text);

// Current UTC time as "YYYY-MM-DDTHH:MM:SSZ".
std::string utc_timestamp();

}  // namespace rlzoo::checkpoint
