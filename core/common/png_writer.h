// A small self-contained PNG encoder (no zlib): 8-bit RGB, rows top to bottom, for the frames
// `rlzoo enjoy --record DIR` writes. Each row gets the PNG filter (None/Sub/Up/Average/Paeth)
// with the smallest sum of absolute residuals, and the filtered rows go through a greedy LZ77
// with fixed-Huffman deflate codes: rendered frames (large flat sky and floor) shrink 20-40
// times against raw RGB, at about the size and speed of zlib's fastest level (~15 ms for an
// 800x600 frame on a slow core). Incompressible data falls back to stored deflate blocks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace rlzoo {

// CRC-32 of PNG/zlib/gzip (reflected polynomial 0xEDB88320; not the CRC-32C of crc32c.h).
// crc32_ieee("123456789") == 0xCBF43926. Pass a previous result as `crc` to continue.
std::uint32_t crc32_ieee(const void* data, std::size_t size, std::uint32_t crc = 0);

// Adler-32 of zlib streams; adler32("Wikipedia") == 0x11E60398. Continue with `adler`.
std::uint32_t adler32(const void* data, std::size_t size, std::uint32_t adler = 1);

// A zlib stream (RFC 1950) holding `data` (fixed-Huffman deflate blocks, RFC 1951).
std::vector<std::uint8_t> zlib_compress(std::span<const std::uint8_t> data);

// The bytes of a PNG file: width*height RGB8 pixels in `rgb`, top row first, rows packed
// (rgb.size() == width*height*3; width, height >= 1, else RLZOO_CHECK fails).
std::vector<std::uint8_t> encode_png(int width, int height, std::span<const std::uint8_t> rgb);

// encode_png written to `path` (replaced when it exists). Throws UserError naming the path when
// the file cannot be written.
void write_png(const std::string& path, int width, int height, std::span<const std::uint8_t> rgb);

}  // namespace rlzoo
