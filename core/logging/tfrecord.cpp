#include "core/logging/tfrecord.h"

#include "core/common/crc32c.h"

namespace rlzoo {

void store_le32(unsigned char* p, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<unsigned char>(v >> (8 * i));
}

void store_le64(unsigned char* p, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<unsigned char>(v >> (8 * i));
}

std::uint32_t load_le32(const unsigned char* p) {
  std::uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= static_cast<std::uint32_t>(p[i]) << (8 * i);
  return v;
}

std::uint64_t load_le64(const unsigned char* p) {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= static_cast<std::uint64_t>(p[i]) << (8 * i);
  return v;
}

void append_tfrecord(std::string& out, std::string_view payload) {
  unsigned char header[kTfRecordHeaderBytes];
  store_le64(header, payload.size());
  store_le32(header + 8, masked_crc32c(header, 8));
  unsigned char footer[kTfRecordFooterBytes];
  store_le32(footer, masked_crc32c(payload.data(), payload.size()));

  out.reserve(out.size() + kTfRecordHeaderBytes + payload.size() + kTfRecordFooterBytes);
  out.append(reinterpret_cast<const char*>(header), sizeof header);
  out.append(payload);
  out.append(reinterpret_cast<const char*>(footer), sizeof footer);
}

std::string frame_tfrecord(std::string_view payload) {
  std::string out;
  append_tfrecord(out, payload);
  return out;
}

}  // namespace rlzoo
