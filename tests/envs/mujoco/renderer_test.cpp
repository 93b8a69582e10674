// The PNG writer (core/common/png_writer.h), decoded back here by a small inflater, and the EGL
// offscreen renderer (skipped, with the reason, where no OpenGL context can be made).
#include <gtest/gtest.h>
#include <mujoco/mujoco.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "core/common/error.h"
#include "core/common/png_writer.h"
#include "envs/mujoco/mujoco_model.h"
#include "envs/mujoco/offscreen_renderer.h"
#include "tests/support/test_paths.h"

namespace rlzoo {
namespace {

using Bytes = std::vector<std::uint8_t>;

std::uint32_t be32(const Bytes& b, std::size_t i) {
  return (std::uint32_t{b[i]} << 24) | (std::uint32_t{b[i + 1]} << 16) | (std::uint32_t{b[i + 2]} << 8) | b[i + 3];
}

// An inflater for what zlib_compress emits: stored and fixed-Huffman blocks (a dynamic block
// fails the test). Checks the zlib header and the Adler-32.
class Inflater {
 public:
  explicit Inflater(const Bytes& z) : in_(z) {}

  Bytes run() {
    EXPECT_GE(in_.size(), 6u);
    EXPECT_EQ((in_[0] * 256 + in_[1]) % 31, 0) << "zlib header check";
    EXPECT_EQ(in_[0] & 0x0F, 8) << "deflate";
    pos_ = 2;
    Bytes out;
    bool final = false;
    while (!final && ok_) {
      final = bits(1);
      const int type = bits(2);
      if (type == 0) {
        if (bit_ != 0) ++pos_, bit_ = 0;  // to the byte boundary
        const std::uint32_t len = in_[pos_] | (in_[pos_ + 1] << 8);
        const std::uint32_t nlen = in_[pos_ + 2] | (in_[pos_ + 3] << 8);
        EXPECT_EQ(len ^ 0xFFFFu, nlen);
        pos_ += 4;
        out.insert(out.end(), in_.begin() + pos_, in_.begin() + pos_ + len);
        pos_ += len;
      } else if (type == 1) {
        fixed_block(out);
      } else {
        ADD_FAILURE() << "unexpected deflate block type " << type;
        ok_ = false;
      }
    }
    if (bit_ != 0) ++pos_, bit_ = 0;
    EXPECT_EQ(pos_ + 4, in_.size()) << "trailing bytes after the deflate stream";
    if (pos_ + 4 <= in_.size()) {
      EXPECT_EQ(be32(in_, pos_), adler32(out.data(), out.size()));
    }
    return out;
  }

 private:
  int bits(int n) {
    int v = 0;
    for (int i = 0; i < n; ++i) {
      if (pos_ >= in_.size()) {
        if (ok_) ADD_FAILURE() << "deflate stream ends early";
        ok_ = false;
        return 0;
      }
      v |= ((in_[pos_] >> bit_) & 1) << i;
      if (++bit_ == 8) bit_ = 0, ++pos_;
    }
    return v;
  }
  int msb_first(int n) {  // a Huffman code
    int v = 0;
    for (int i = 0; i < n; ++i) v = (v << 1) | bits(1);
    return v;
  }
  int literal_length() {
    int code = msb_first(7);
    if (code <= 0x17) return 256 + code;            // 7 bits: 256..279
    code = (code << 1) | bits(1);                    // 8 bits
    if (code >= 0x30 && code <= 0xBF) return code - 0x30;
    if (code >= 0xC0 && code <= 0xC7) return 280 + code - 0xC0;
    code = (code << 1) | bits(1);                    // 9 bits: 144..255
    return 144 + code - 0x190;
  }
  void fixed_block(Bytes& out) {
    static const int kLengthBase[] = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                                      31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
    static const int kLengthExtra[] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
    static const int kDistBase[] = {1,    2,    3,    4,    5,    7,     9,     13,    17,  25,   33,   49,   65,   97,   129,
                                    193,  257,  385,  513,  769,  1025,  1537,  2049,  3073, 4097, 6145, 8193, 12289, 16385, 24577};
    static const int kDistExtra[] = {0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};
    while (ok_) {
      const int sym = literal_length();
      if (sym < 256) {
        out.push_back(static_cast<std::uint8_t>(sym));
      } else if (sym == 256) {
        return;
      } else {
        if (sym > 285) {
          ADD_FAILURE() << "bad length symbol " << sym;
          ok_ = false;
          return;
        }
        const int length = kLengthBase[sym - 257] + bits(kLengthExtra[sym - 257]);
        const int d = msb_first(5);
        if (d > 29) {
          ADD_FAILURE() << "bad distance symbol " << d;
          ok_ = false;
          return;
        }
        const std::size_t distance = kDistBase[d] + bits(kDistExtra[d]);
        if (distance > out.size()) {
          ADD_FAILURE() << "distance " << distance << " reaches before the start";
          ok_ = false;
          return;
        }
        for (int k = 0; k < length; ++k) out.push_back(out[out.size() - distance]);
      }
    }
  }

  const Bytes& in_;
  std::size_t pos_ = 0;
  int bit_ = 0;
  bool ok_ = true;
};

Bytes read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return Bytes(std::istreambuf_iterator<char>(f), {});
}

struct DecodedPng {
  int width = 0;
  int height = 0;
  Bytes rgb;
};

// Parses a PNG as write_png makes it (RGB8, no interlace), checking each chunk's CRC.
DecodedPng decode_png(const Bytes& png) {
  DecodedPng result;
  const Bytes signature = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  EXPECT_TRUE(png.size() >= 8 && Bytes(png.begin(), png.begin() + 8) == signature) << "PNG signature";
  std::size_t pos = 8;
  Bytes idat;
  std::vector<std::string> chunks;
  while (pos + 12 <= png.size()) {
    const std::uint32_t len = be32(png, pos);
    if (pos + 12 + len > png.size()) break;
    const std::string type(png.begin() + pos + 4, png.begin() + pos + 8);
    chunks.push_back(type);
    EXPECT_EQ(be32(png, pos + 8 + len), crc32_ieee(png.data() + pos + 4, 4 + len)) << "CRC of chunk " << type;
    if (type == "IHDR") {
      EXPECT_EQ(len, 13u);
      result.width = static_cast<int>(be32(png, pos + 8));
      result.height = static_cast<int>(be32(png, pos + 12));
      EXPECT_EQ(png[pos + 16], 8) << "bit depth";
      EXPECT_EQ(png[pos + 17], 2) << "colour type RGB";
      EXPECT_EQ(png[pos + 18], 0) << "compression";
      EXPECT_EQ(png[pos + 19], 0) << "filter method";
      EXPECT_EQ(png[pos + 20], 0) << "interlace";
    } else if (type == "IDAT") {
      idat.insert(idat.end(), png.begin() + pos + 8, png.begin() + pos + 8 + len);
    }
    pos += 12 + len;
  }
  EXPECT_EQ(pos, png.size()) << "bytes after the last chunk";
  EXPECT_TRUE(!chunks.empty() && chunks.front() == "IHDR" && chunks.back() == "IEND");
  const Bytes filtered = Inflater(idat).run();
  const std::size_t stride = static_cast<std::size_t>(result.width) * 3;
  if (filtered.size() != (stride + 1) * result.height) {
    ADD_FAILURE() << "inflated " << filtered.size() << " bytes, expected " << (stride + 1) * result.height;
    return result;
  }
  result.rgb.resize(stride * result.height);
  for (int y = 0; y < result.height; ++y) {
    const int type = filtered[y * (stride + 1)];
    EXPECT_LE(type, 4) << "filter type of row " << y;
    for (std::size_t x = 0; x < stride; ++x) {
      const int a = x >= 3 ? result.rgb[y * stride + x - 3] : 0;
      const int b = y > 0 ? result.rgb[(y - 1) * stride + x] : 0;
      const int c = (x >= 3 && y > 0) ? result.rgb[(y - 1) * stride + x - 3] : 0;
      const int p = a + b - c;
      const int pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
      const int paeth = (pa <= pb && pa <= pc) ? a : (pb <= pc ? b : c);
      const int prediction[5] = {0, a, b, (a + b) / 2, paeth};
      result.rgb[y * stride + x] = static_cast<std::uint8_t>(filtered[y * (stride + 1) + 1 + x] + prediction[type % 5]);
    }
  }
  return result;
}

std::string temp_path(const std::string& name) {
  static const std::string dir = test::make_temp_dir("rlzoo-renderer-test");  // removed at exit
  return dir + "/" + name;
}

TEST(Checksums, KnownVectors) {
  const std::string digits = "123456789";
  EXPECT_EQ(crc32_ieee(digits.data(), digits.size()), 0xCBF43926u);
  EXPECT_EQ(crc32_ieee(digits.data() + 4, 5, crc32_ieee(digits.data(), 4)), 0xCBF43926u) << "continued";
  EXPECT_EQ(crc32_ieee(nullptr, 0), 0u);
  const std::string wikipedia = "Wikipedia";
  EXPECT_EQ(adler32(wikipedia.data(), wikipedia.size()), 0x11E60398u);
  EXPECT_EQ(adler32(nullptr, 0), 1u);
  const Bytes zeros(100000, 0xFF);  // past adler32's 5552-byte blocks
  std::uint32_t a = 1, b = 0;
  for (std::uint8_t v : zeros) a = (a + v) % 65521, b = (b + a) % 65521;
  EXPECT_EQ(adler32(zeros.data(), zeros.size()), (b << 16) | a);
}

TEST(ZlibCompress, RoundTrips) {
  std::mt19937 rng(3);
  for (int t = 0; t < 12; ++t) {
    const std::size_t n = t == 0 ? 0 : t == 1 ? 1 : rng() % 150000;
    Bytes data(n);
    for (std::size_t i = 0; i < n; ++i)
      data[i] = t % 3 == 0 ? static_cast<std::uint8_t>(rng()) : t % 3 == 1 ? static_cast<std::uint8_t>(rng() % 4)
                                                                           : static_cast<std::uint8_t>(i / 700);
    const Bytes z = zlib_compress(data);
    EXPECT_EQ(Inflater(z).run(), data) << "case " << t << ", " << n << " bytes";
    EXPECT_LE(z.size(), n + 6 + 5 * (n / 65535 + 1)) << "never much beyond stored size";
  }
}

TEST(PngWriter, RoundTripsPixels) {
  std::mt19937 rng(5);
  for (auto [w, h] : {std::pair{1, 1}, std::pair{7, 3}, std::pair{320, 240}, std::pair{33, 200}}) {
    Bytes rgb(static_cast<std::size_t>(w) * h * 3);
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x)
        for (int c = 0; c < 3; ++c)  // smooth gradients with noisy patches: every filter gets used
          rgb[(y * w + x) * 3 + c] =
              static_cast<std::uint8_t>((x / 40 + y / 30) % 2 ? rng() : x * (c + 1) + y * (3 - c));
    const std::string path = temp_path("frame_" + std::to_string(w) + "x" + std::to_string(h) + ".png");
    write_png(path, w, h, rgb);
    const Bytes png = read_file(path);
    EXPECT_EQ(png, encode_png(w, h, rgb));
    const DecodedPng decoded = decode_png(png);
    EXPECT_EQ(decoded.width, w);
    EXPECT_EQ(decoded.height, h);
    EXPECT_TRUE(decoded.rgb == rgb) << w << "x" << h << ": the pixels differ after decoding";
  }
}

TEST(PngWriter, CompressesFlatImages) {
  const int w = 640, h = 480;
  Bytes rgb(static_cast<std::size_t>(w) * h * 3, 200);
  for (int y = h / 2; y < h; ++y)
    for (int x = 0; x < w; ++x) rgb[(y * w + x) * 3 + 1] = 230;
  const Bytes png = encode_png(w, h, rgb);
  EXPECT_LT(png.size(), rgb.size() / 20);
  EXPECT_TRUE(decode_png(png).rgb == rgb);
}

TEST(PngWriter, UnwritablePathNamesThePath) {
  const std::string path = temp_path("no_such_dir") + "/frame.png";
  const Bytes rgb(3, 0);
  try {
    write_png(path, 1, 1, rgb);
    FAIL() << "no UserError";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
}

TEST(OffscreenRenderer, RendersHalfCheetah) {
  if (const auto why = OffscreenRenderer::unavailable_reason()) GTEST_SKIP() << *why;
  const auto model = load_mujoco_model("", "half_cheetah.xml");
  const mjModel* m = model->get();
  mjData* d = mj_makeData(m);
  ASSERT_NE(d, nullptr);
  mj_forward(m, d);
  const int w = 320, h = 240;
  OffscreenRenderer renderer(m, w, h);
  EXPECT_EQ(renderer.width(), w);
  EXPECT_EQ(renderer.height(), h);
  Bytes rgb(static_cast<std::size_t>(w) * h * 3);
  const auto start = std::chrono::steady_clock::now();
  renderer.render(d, rgb);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  std::cout << "[render] 320x240 HalfCheetah frame in " << ms << " ms with " << renderer.description() << std::endl;

  std::size_t differing = 0;
  for (std::size_t i = 3; i < rgb.size(); i += 3)
    differing += rgb[i] != rgb[0] || rgb[i + 1] != rgb[1] || rgb[i + 2] != rgb[2];
  EXPECT_GT(differing, rgb.size() / 3 / 10) << "the frame is (nearly) uniform";
  // Top row first: the bottom of the frame is the floor (rgba .8 .9 .8: green strongest).
  const std::size_t bottom = ((h - 1) * static_cast<std::size_t>(w) + w / 2) * 3;
  EXPECT_GT(rgb[bottom + 1], rgb[bottom]);
  EXPECT_GT(rgb[bottom + 1], rgb[bottom + 2]);

  // The same state renders the same frame; a moved leg changes it.
  Bytes again(rgb.size());
  renderer.render(d, again);
  EXPECT_TRUE(again == rgb);
  d->qpos[3] += 0.5;  // back thigh
  mj_forward(m, d);
  renderer.render(d, again);
  EXPECT_FALSE(again == rgb);

  write_png(temp_path("half_cheetah.png"), w, h, rgb);
  mj_deleteData(d);
}

TEST(OffscreenRenderer, SizesBeyondTheModelsOffscreenBuffer) {
  if (const auto why = OffscreenRenderer::unavailable_reason()) GTEST_SKIP() << *why;
  const auto model = load_mujoco_model("", "reacher.xml");  // no "track" camera: the free camera
  const mjModel* m = model->get();
  const int offwidth = m->vis.global.offwidth;
  ASSERT_LT(offwidth, 700);
  mjData* d = mj_makeData(m);
  mj_forward(m, d);
  OffscreenRenderer renderer(m, 700, 20);
  Bytes rgb(700 * 20 * 3);
  renderer.render(d, rgb);
  EXPECT_EQ(m->vis.global.offwidth, offwidth) << "the model is not changed";
  std::size_t differing = 0;
  for (std::size_t i = 3; i < rgb.size(); i += 3) differing += rgb[i] != rgb[0] || rgb[i + 1] != rgb[1];
  EXPECT_GT(differing, 0u) << "the frame is uniform";
  mj_deleteData(d);
}

}  // namespace
}  // namespace rlzoo
