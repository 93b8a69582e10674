// CRC-32C and TensorBoard's masking against the published check values
// (/work/shared/notes/ecosystem.md section 4) and a bit-by-bit reference.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/common/crc32c.h"

namespace {

// The definition, one bit at a time: reflected polynomial 0x82F63B78, init and final XOR ~0.
std::uint32_t reference_crc32c(const unsigned char* p, std::size_t n) {
  std::uint32_t c = 0xFFFFFFFFu;
  for (std::size_t i = 0; i < n; ++i) {
    c ^= p[i];
    for (int k = 0; k < 8; ++k) c = (c & 1u) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
  }
  return ~c;
}

std::uint32_t masked_of(const std::string& s) { return rlzoo::masked_crc32c(s.data(), s.size()); }

}  // namespace

TEST(Crc32c, StandardCheckValue) {
  const std::string s = "123456789";
  EXPECT_EQ(rlzoo::crc32c(s.data(), s.size()), 0xE3069283u);
}

TEST(Crc32c, EmptyInputIsZero) { EXPECT_EQ(rlzoo::crc32c("", 0), 0u); }

TEST(Crc32c, MaskedVectorsFromTheNotes) {
  EXPECT_EQ(masked_of("foo"), 0xFEBE8A61u);
  EXPECT_EQ(masked_of(std::string(32, '\x00')), 0x0FD7FFFAu);
  EXPECT_EQ(masked_of(std::string(32, '\xFF')), 0xF909B029u);
  EXPECT_EQ(masked_of(std::string("\x03\x00\x00\x00\x00\x00\x00\x00", 8)), 0x0E4999B0u);
  EXPECT_EQ(masked_of("\x1a\x11" "CRC test, one two"), 0x5794D08Au);
}

TEST(Crc32c, MaskFormula) {
  // ((crc >> 15) | (crc << 17)) + 0xA282EAD8 mod 2^32.
  EXPECT_EQ(rlzoo::mask_crc32c(0), 0xA282EAD8u);
  EXPECT_EQ(rlzoo::mask_crc32c(0x00008000u), 0xA282EAD9u);                // rotates 15 bits right
  EXPECT_EQ(rlzoo::mask_crc32c(0xFFFFFFFFu), 0xA282EAD7u);                // wraps mod 2^32
  EXPECT_EQ(rlzoo::mask_crc32c(0x00000001u), 0x00020000u + 0xA282EAD8u);
}

TEST(Crc32c, ContinuesAcrossBuffers) {
  const std::string a = "The quick brown fox ", b = "jumps over the lazy dog";
  const std::string ab = a + b;
  EXPECT_EQ(rlzoo::crc32c(b.data(), b.size(), rlzoo::crc32c(a.data(), a.size())),
            rlzoo::crc32c(ab.data(), ab.size()));
}

// Every length up to a few words at every alignment: the fast paths (8-byte words, SSE4.2) must
// agree with the definition, including their byte-wise tails.
TEST(Crc32c, MatchesBitwiseReferenceAtAllLengthsAndAlignments) {
  std::vector<unsigned char> buf(200);
  for (std::size_t i = 0; i < buf.size(); ++i) buf[i] = static_cast<unsigned char>(i * 131 + 7);
  for (std::size_t offset = 0; offset < 8; ++offset)
    for (std::size_t n = 0; n + offset <= 80; ++n)
      ASSERT_EQ(rlzoo::crc32c(buf.data() + offset, n), reference_crc32c(buf.data() + offset, n))
          << "offset " << offset << " length " << n;
}
