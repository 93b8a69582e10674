// Builds small zip archives and PyTorch-style pickles byte by byte, so that the zip reader and
// the state-dict reader are tested on hand-made input (no python, no torch at test time).
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <string>
#include <vector>

namespace rlzoo::test {

// CRC-32 (IEEE), bit by bit: deliberately not the reader's table-driven one.
inline std::uint32_t crc32_bitwise(const std::string& data) {
  std::uint32_t c = 0xffffffffu;
  for (const char ch : data) {
    c ^= static_cast<std::uint8_t>(ch);
    for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
  }
  return ~c;
}

inline std::string le(std::uint64_t v, int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += static_cast<char>((v >> (8 * i)) & 0xff);
  return s;
}

struct ZipOptions {
  bool data_descriptors = true;  // as torch.save: local headers with CRC and sizes 0, flag 0x0808
  bool zip64 = false;            // zip64 EOCD + locator, and 0xFFFF.. in the classic EOCD
  std::string comment = {};      // archive comment after the EOCD
};

// Entries are STORED unless a method is given (the data is then written as is, uncompressed,
// with the method number a reader must refuse).
class ZipBuilder {
 public:
  ZipBuilder& add(std::string name, std::string data, std::uint16_t method = 0) {
    entries_.push_back({std::move(name), std::move(data), method});
    return *this;
  }

  std::string build(const ZipOptions& opt = {}) const {
    std::string out, central;
    const std::uint16_t flags = opt.data_descriptors ? 0x0808 : 0x0800;
    for (const auto& e : entries_) {
      const std::uint64_t offset = out.size();
      const std::uint32_t crc = crc32_bitwise(e.data);
      const std::string sizes = le(crc, 4) + le(e.data.size(), 4) + le(e.data.size(), 4);
      // torch pads each entry's data to 64 bytes with an extra field "FB".
      const std::size_t unpadded = out.size() + 30 + e.name.size() + 4;
      const std::size_t pad = (64 - unpadded % 64) % 64;
      const std::string extra = std::string("FB") + le(pad, 2) + std::string(pad, 'Z');
      out += le(0x04034b50, 4) + le(20, 2) + le(flags, 2) + le(e.method, 2) + le(0, 4);
      out += opt.data_descriptors ? std::string(12, '\0') : sizes;
      out += le(e.name.size(), 2) + le(extra.size(), 2) + e.name + extra + e.data;
      if (opt.data_descriptors) out += le(0x08074b50, 4) + sizes;
      central += le(0x02014b50, 4) + le(20, 2) + le(20, 2) + le(flags, 2) + le(e.method, 2) + le(0, 4) + sizes;
      central += le(e.name.size(), 2) + le(0, 2) + le(0, 2) + le(0, 2) + le(0, 2) + le(0, 4) + le(offset, 4) + e.name;
    }
    const std::uint64_t cd_offset = out.size(), n = entries_.size();
    out += central;
    if (opt.zip64) {
      const std::uint64_t record = out.size();
      out += le(0x06064b50, 4) + le(44, 8) + le(45, 2) + le(45, 2) + le(0, 4) + le(0, 4) + le(n, 8) + le(n, 8) +
             le(central.size(), 8) + le(cd_offset, 8);
      out += le(0x07064b50, 4) + le(0, 4) + le(record, 8) + le(1, 4);
      out += le(0x06054b50, 4) + le(0, 4) + le(0xffff, 2) + le(0xffff, 2) + le(0xffffffff, 4) + le(0xffffffff, 4);
    } else {
      out += le(0x06054b50, 4) + le(0, 4) + le(n, 2) + le(n, 2) + le(central.size(), 4) + le(cd_offset, 4);
    }
    out += le(opt.comment.size(), 2) + opt.comment;
    return out;
  }

 private:
  struct Entry {
    std::string name, data;
    std::uint16_t method;
  };
  std::vector<Entry> entries_;
};

// Removes the file first: truncating a file makes ext4 flush it on close (auto_da_alloc),
// which costs milliseconds per rewrite in the loops below.
inline void write_file(const std::string& path, const std::string& bytes) {
  std::filesystem::remove(path);
  std::ofstream(path, std::ios::binary) << bytes;
}

// ---- Pickle fragments (protocol 2), as torch.save writes them ----

namespace pickle {

inline std::string global(const std::string& module, const std::string& name) {
  return std::string("c") + module + "\n" + name + "\n";
}
inline std::string str(const std::string& s) { return std::string("X") + le(s.size(), 4) + s; }
inline std::string integer(std::int64_t v) {
  if (v >= 0 && v < 256) return std::string("K") + le(v, 1);
  if (v >= 0 && v < 65536) return std::string("M") + le(v, 2);
  if (v >= INT32_MIN && v <= INT32_MAX) return std::string("J") + le(static_cast<std::uint32_t>(v), 4);
  return std::string("\x8a\x08") + le(static_cast<std::uint64_t>(v), 8);  // LONG1
}
inline std::string ints(std::initializer_list<std::int64_t> values) {
  std::string s = "(";
  for (const auto v : values) s += integer(v);
  return s + "t";
}
inline std::string ordered_dict() { return global("collections", "OrderedDict") + ")R"; }

// BINPERSID of ('storage', torch.<cls>, key, location, numel).
inline std::string storage(const std::string& cls, const std::string& key, const std::string& location,
                           std::int64_t numel) {
  return std::string("(") + str("storage") + global("torch", cls) + str(key) + str(location) + integer(numel) + "tQ";
}
// _rebuild_tensor_v2(storage, offset, size, stride, False, OrderedDict()); `storage_pickle` and
// `offset_pickle` are any fragments that leave a storage and an int on the stack.
inline std::string tensor_at(const std::string& storage_pickle, const std::string& offset_pickle,
                             const std::string& size, const std::string& stride) {
  return global("torch._utils", "_rebuild_tensor_v2") + "(" + storage_pickle + offset_pickle + size + stride + "\x89" +
         ordered_dict() + "tR";
}
inline std::string tensor(const std::string& storage_pickle, std::int64_t offset, const std::string& size,
                          const std::string& stride) {
  return tensor_at(storage_pickle, integer(offset), size, stride);
}
// PROTO 2, OrderedDict() with the given (key, tensor) fragments, the `_metadata` BUILD, STOP.
inline std::string state_dict(const std::vector<std::pair<std::string, std::string>>& items) {
  std::string s = std::string("\x80\x02") + ordered_dict() + "(";
  for (const auto& [key, value] : items) s += str(key) + value;
  return s + "u}" + str("_metadata") + ordered_dict() + "sb.";
}

}  // namespace pickle

}  // namespace rlzoo::test
