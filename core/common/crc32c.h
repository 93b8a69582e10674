// CRC-32C (Castagnoli), as used by TensorBoard's record framing and our checkpoint manifests.
#pragma once

#include <cstddef>
#include <cstdint>

namespace rlzoo {

// CRC-32C of data; pass a previous result as `crc` to continue over several buffers.
// crc32c("123456789") == 0xE3069283.
std::uint32_t crc32c(const void* data, std::size_t size, std::uint32_t crc = 0);

// The masking TensorBoard/TFRecord/LevelDB apply to stored CRCs.
inline std::uint32_t mask_crc32c(std::uint32_t crc) {
  return ((crc >> 15) | (crc << 17)) + 0xA282EAD8u;
}
inline std::uint32_t masked_crc32c(const void* data, std::size_t size) { return mask_crc32c(crc32c(data, size)); }

}  // namespace rlzoo
