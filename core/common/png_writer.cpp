#include "core/common/png_writer.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "core/common/error.h"

namespace rlzoo {

namespace {

using Bytes = std::vector<std::uint8_t>;

const std::array<std::uint32_t, 256>& crc_table() {
  static const std::array<std::uint32_t, 256> table = [] {
    std::array<std::uint32_t, 256> t{};
    for (std::uint32_t i = 0; i < 256; ++i) {
      std::uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
      t[i] = c;
    }
    return t;
  }();
  return table;
}

// ---- deflate (RFC 1951), fixed Huffman codes ------------------------------------------------

// Bits go out least significant first; Huffman codes are stored most significant bit first,
// so they are bit-reversed before they are written.
class BitWriter {
 public:
  explicit BitWriter(Bytes& out) : out_(out) {}
  void put(std::uint32_t value, int nbits) {
    acc_ |= static_cast<std::uint64_t>(value) << count_;
    count_ += nbits;
    while (count_ >= 8) {
      out_.push_back(static_cast<std::uint8_t>(acc_));
      acc_ >>= 8;
      count_ -= 8;
    }
  }
  void put_code(std::uint32_t code, int nbits) {
    std::uint32_t reversed = 0;
    for (int i = 0; i < nbits; ++i) reversed |= ((code >> i) & 1u) << (nbits - 1 - i);
    put(reversed, nbits);
  }
  void flush() {
    if (count_ > 0) out_.push_back(static_cast<std::uint8_t>(acc_));
    acc_ = 0;
    count_ = 0;
  }

 private:
  Bytes& out_;
  std::uint64_t acc_ = 0;
  int count_ = 0;
};

void put_literal_length_symbol(BitWriter& w, int symbol) {
  if (symbol < 144)
    w.put_code(0x30u + symbol, 8);
  else if (symbol < 256)
    w.put_code(0x190u + (symbol - 144), 9);
  else if (symbol < 280)
    w.put_code(static_cast<std::uint32_t>(symbol - 256), 7);
  else
    w.put_code(0xC0u + (symbol - 280), 8);
}

constexpr std::array<int, 29> kLengthBase = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                                             31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
constexpr std::array<int, 29> kLengthExtra = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                              2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
constexpr std::array<int, 30> kDistBase = {1,   2,   3,   4,   5,   7,    9,    13,   17,   25,
                                           33,  49,  65,  97,  129, 193,  257,  385,  513,  769,
                                           1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
constexpr std::array<int, 30> kDistExtra = {0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6,
                                            6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};

void put_match(BitWriter& w, int length, int distance) {
  int l = 28;
  while (kLengthBase[l] > length) --l;
  put_literal_length_symbol(w, 257 + l);
  if (kLengthExtra[l] > 0) w.put(static_cast<std::uint32_t>(length - kLengthBase[l]), kLengthExtra[l]);
  int d = 29;
  while (kDistBase[d] > distance) --d;
  w.put_code(static_cast<std::uint32_t>(d), 5);
  if (kDistExtra[d] > 0) w.put(static_cast<std::uint32_t>(distance - kDistBase[d]), kDistExtra[d]);
}

// One final fixed-Huffman block (its size is unbounded) holding a greedy LZ77 parse of `data`.
void deflate_fixed(std::span<const std::uint8_t> data, Bytes& out) {
  constexpr int kWindow = 32768;
  constexpr int kMinMatch = 3;
  constexpr int kMaxMatch = 258;
  constexpr int kMaxChain = 32;
  constexpr int kHashBits = 15;
  BitWriter w(out);
  w.put(1, 1);  // BFINAL
  w.put(1, 2);  // BTYPE = 01, fixed Huffman codes
  const std::size_t n = data.size();
  std::vector<std::int64_t> head(std::size_t{1} << kHashBits, -1);
  std::vector<std::int64_t> prev(kWindow, -1);
  const auto hash = [&](std::size_t i) {
    const std::uint32_t v = data[i] | (data[i + 1] << 8) | (data[i + 2] << 16);
    return (v * 2654435761u) >> (32 - kHashBits);
  };
  const auto insert = [&](std::size_t i) {
    if (i + kMinMatch > n) return;
    const auto h = hash(i);
    prev[i % kWindow] = head[h];
    head[h] = static_cast<std::int64_t>(i);
  };
  std::size_t i = 0;
  while (i < n) {
    int best_length = 0;
    std::size_t best_distance = 0;
    if (i + kMinMatch <= n) {
      const std::size_t limit = std::min<std::size_t>(kMaxMatch, n - i);
      std::int64_t candidate = head[hash(i)];
      for (int chain = 0; chain < kMaxChain && candidate >= 0; ++chain) {
        const std::size_t c = static_cast<std::size_t>(candidate);
        const std::size_t distance = i - c;
        if (distance > static_cast<std::size_t>(kWindow)) break;
        if (data[c + best_length] == data[i + best_length]) {
          std::size_t len = 0;
          while (len < limit && data[c + len] == data[i + len]) ++len;
          if (static_cast<int>(len) > best_length) {
            best_length = static_cast<int>(len);
            best_distance = distance;
            if (len == limit) break;
          }
        }
        const std::int64_t next = prev[c % kWindow];
        if (next >= candidate) break;  // the slot was overwritten by a newer position
        candidate = next;
      }
    }
    if (best_length >= kMinMatch) {
      put_match(w, best_length, static_cast<int>(best_distance));
      for (int k = 0; k < best_length; ++k) insert(i + k);
      i += best_length;
    } else {
      put_literal_length_symbol(w, data[i]);
      insert(i);
      ++i;
    }
  }
  put_literal_length_symbol(w, 256);  // end of block
  w.flush();
}

// Stored (uncompressed) blocks of at most 65535 bytes: the fallback for incompressible data.
void deflate_stored(std::span<const std::uint8_t> data, Bytes& out) {
  std::size_t i = 0;
  do {
    const std::size_t len = std::min<std::size_t>(65535, data.size() - i);
    const bool final = i + len == data.size();
    out.push_back(final ? 1 : 0);  // BFINAL, BTYPE = 00; the rest of the byte is padding
    out.push_back(static_cast<std::uint8_t>(len));
    out.push_back(static_cast<std::uint8_t>(len >> 8));
    out.push_back(static_cast<std::uint8_t>(~len));
    out.push_back(static_cast<std::uint8_t>(~len >> 8));
    out.insert(out.end(), data.begin() + i, data.begin() + i + len);
    i += len;
  } while (i < data.size());
}

void put_u32(Bytes& out, std::uint32_t v) {
  out.push_back(static_cast<std::uint8_t>(v >> 24));
  out.push_back(static_cast<std::uint8_t>(v >> 16));
  out.push_back(static_cast<std::uint8_t>(v >> 8));
  out.push_back(static_cast<std::uint8_t>(v));
}

void put_chunk(Bytes& out, const char type[4], std::span<const std::uint8_t> payload) {
  put_u32(out, static_cast<std::uint32_t>(payload.size()));
  const std::size_t start = out.size();
  out.insert(out.end(), type, type + 4);
  out.insert(out.end(), payload.begin(), payload.end());
  put_u32(out, crc32_ieee(out.data() + start, out.size() - start));
}

// ---- PNG row filters --------------------------------------------------------------------------

int paeth(int a, int b, int c) {
  const int p = a + b - c;
  const int pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
  if (pa <= pb && pa <= pc) return a;
  if (pb <= pc) return b;
  return c;
}

// Appends the filter byte and the filtered row; `above` is empty for the first row. `scratch`
// holds the five candidate rows between calls.
void filter_row(std::span<const std::uint8_t> row, std::span<const std::uint8_t> above,
                std::array<Bytes, 5>& scratch, Bytes& out) {
  constexpr std::size_t bpp = 3;
  const std::size_t n = row.size();
  Bytes zero_row;
  if (above.empty()) {
    zero_row.assign(n, 0);
    above = zero_row;
  }
  for (auto& c : scratch) c.resize(n);
  const std::uint8_t* r = row.data();
  const std::uint8_t* b = above.data();
  // Per filter: residual = row - prediction (mod 256); cost = sum of |residual as int8|.
  const auto cost_of = [](const Bytes& residuals) {
    std::uint64_t cost = 0;
    for (std::uint8_t v : residuals) cost += v < 128 ? v : 256 - v;
    return cost;
  };
  std::uint8_t* none = scratch[0].data();
  std::uint8_t* sub = scratch[1].data();
  std::uint8_t* up = scratch[2].data();
  std::uint8_t* avg = scratch[3].data();
  std::uint8_t* pae = scratch[4].data();
  for (std::size_t x = 0; x < n; ++x) {
    none[x] = r[x];
    up[x] = static_cast<std::uint8_t>(r[x] - b[x]);
  }
  for (std::size_t x = 0; x < std::min(bpp, n); ++x) {
    sub[x] = r[x];
    avg[x] = static_cast<std::uint8_t>(r[x] - (b[x] >> 1));
    pae[x] = static_cast<std::uint8_t>(r[x] - b[x]);  // paeth(0, b, 0) == b
  }
  for (std::size_t x = bpp; x < n; ++x) {
    const int a = r[x - bpp], c = b[x - bpp];
    sub[x] = static_cast<std::uint8_t>(r[x] - a);
    avg[x] = static_cast<std::uint8_t>(r[x] - ((a + b[x]) >> 1));
    pae[x] = static_cast<std::uint8_t>(r[x] - paeth(a, b[x], c));
  }
  int best = 0;
  std::uint64_t best_cost = cost_of(scratch[0]);
  for (int f = 1; f < 5; ++f) {
    const std::uint64_t cost = cost_of(scratch[f]);
    if (cost < best_cost) best = f, best_cost = cost;
  }
  out.push_back(static_cast<std::uint8_t>(best));
  out.insert(out.end(), scratch[best].begin(), scratch[best].end());
}

}  // namespace

std::uint32_t crc32_ieee(const void* data, std::size_t size, std::uint32_t crc) {
  const auto& t = crc_table();
  const auto* p = static_cast<const std::uint8_t*>(data);
  crc = ~crc;
  for (std::size_t i = 0; i < size; ++i) crc = t[(crc ^ p[i]) & 0xFFu] ^ (crc >> 8);
  return ~crc;
}

std::uint32_t adler32(const void* data, std::size_t size, std::uint32_t adler) {
  constexpr std::uint32_t kMod = 65521;
  const auto* p = static_cast<const std::uint8_t*>(data);
  std::uint32_t a = adler & 0xFFFFu, b = adler >> 16;
  while (size > 0) {
    const std::size_t block = std::min<std::size_t>(size, 5552);  // no uint32 overflow before the modulo
    for (std::size_t i = 0; i < block; ++i) {
      a += p[i];
      b += a;
    }
    a %= kMod;
    b %= kMod;
    p += block;
    size -= block;
  }
  return (b << 16) | a;
}

std::vector<std::uint8_t> zlib_compress(std::span<const std::uint8_t> data) {
  Bytes out = {0x78, 0x01};  // deflate, 32K window; (0x78 * 256 + 0x01) % 31 == 0
  out.reserve(data.size() / 4 + 64);
  deflate_fixed(data, out);
  const std::size_t stored_size = 2 + data.size() + 5 * std::max<std::size_t>(1, (data.size() + 65534) / 65535);
  if (out.size() > stored_size) {
    out.resize(2);
    deflate_stored(data, out);
  }
  put_u32(out, adler32(data.data(), data.size()));
  return out;
}

std::vector<std::uint8_t> encode_png(int width, int height, std::span<const std::uint8_t> rgb) {
  RLZOO_CHECK(width >= 1 && height >= 1, "encode_png: empty image");
  RLZOO_CHECK(width <= (1 << 24) && height <= (1 << 24), "encode_png: image too large");
  const std::size_t stride = static_cast<std::size_t>(width) * 3;
  RLZOO_CHECK(rgb.size() == stride * static_cast<std::size_t>(height), "encode_png: rgb size is not width*height*3");

  Bytes filtered;
  filtered.reserve((stride + 1) * height);
  std::array<Bytes, 5> scratch;
  for (int y = 0; y < height; ++y) {
    const auto row = rgb.subspan(y * stride, stride);
    const auto above = y == 0 ? std::span<const std::uint8_t>{} : rgb.subspan((y - 1) * stride, stride);
    filter_row(row, above, scratch, filtered);
  }

  Bytes png = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  Bytes ihdr;
  put_u32(ihdr, static_cast<std::uint32_t>(width));
  put_u32(ihdr, static_cast<std::uint32_t>(height));
  ihdr.insert(ihdr.end(), {8, 2, 0, 0, 0});  // bit depth 8, colour type 2 (RGB), deflate, adaptive filters, no interlace
  put_chunk(png, "IHDR", ihdr);
  put_chunk(png, "IDAT", zlib_compress(filtered));
  put_chunk(png, "IEND", {});
  return png;
}

void write_png(const std::string& path, int width, int height, std::span<const std::uint8_t> rgb) {
  const Bytes png = encode_png(width, height, rgb);
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) throw UserError("cannot write PNG '" + path + "': " + std::strerror(errno));
  const bool written = std::fwrite(png.data(), 1, png.size(), f) == png.size();
  const int write_errno = errno;
  const bool closed = std::fclose(f) == 0;
  if (!written || !closed)
    throw UserError("cannot write PNG '" + path + "': " + std::strerror(written ? errno : write_errno));
}

}  // namespace rlzoo
