// TFRecord framing, the container of TensorBoard event files. Each record is
//
//   uint64  length                      little-endian
//   uint32  masked CRC-32C of the 8 length bytes
//   byte    data[length]                (a serialized Event for TensorBoard)
//   uint32  masked CRC-32C of data
//
// The length has its own CRC so a reader can trust it before reading `length` bytes; the
// masking (core/common/crc32c.h) is TensorBoard's, so the bytes match what TensorBoard writes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace rlzoo {

// Bytes of framing around a payload: 8 (length) + 4 (length CRC) before, 4 (data CRC) after.
inline constexpr std::size_t kTfRecordHeaderBytes = 12;
inline constexpr std::size_t kTfRecordFooterBytes = 4;

// Appends one whole framed record holding `payload` to `out`.
void append_tfrecord(std::string& out, std::string_view payload);

// The framed record for `payload` (append_tfrecord into an empty string).
std::string frame_tfrecord(std::string_view payload);

// Little-endian loads/stores used by the framing (independent of the host's byte order).
void store_le32(unsigned char* p, std::uint32_t v);
void store_le64(unsigned char* p, std::uint64_t v);
std::uint32_t load_le32(const unsigned char* p);
std::uint64_t load_le64(const unsigned char* p);

}  // namespace rlzoo
