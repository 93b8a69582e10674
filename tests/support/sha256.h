// SHA-256 of a byte string as lowercase hex (FIPS 180-4), for comparing with reference hashes.
#pragma once

#include <string>
#include <string_view>

namespace rlzoo::test {

std::string sha256_hex(std::string_view bytes);

}  // namespace rlzoo::test
