#include "core/common/rng.h"

#include <cmath>
#include <numbers>
#include <sstream>

#include "core/common/error.h"

namespace rlzoo {

namespace {
std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}
}  // namespace

void Rng::seed_with(std::uint64_t seed) {
  // Spread the seed so that nearby seeds give unrelated streams.
  std::seed_seq seq{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32),
                    static_cast<std::uint32_t>(splitmix64(seed))};
  engine_.seed(seq);
  position_ = kStateWords;
}

std::uint64_t Rng::below(std::uint64_t n) {
  RLZOO_CHECK(n > 0);
  const std::uint64_t limit = ~std::uint64_t{0} - (~std::uint64_t{0} % n);
  std::uint64_t x;
  do { x = draw(); } while (x >= limit);
  return x % n;
}

double Rng::normal() {
  double u1;
  do { u1 = uniform(); } while (u1 <= 0.0);
  const double u2 = uniform();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

std::string Rng::state() const {
  std::ostringstream os;
  os << engine_;
  return os.str();
}

void Rng::set_state(const std::string& s) {
  std::istringstream is(s);
  std::mt19937_64 e;
  is >> e;
  if (is.fail()) throw UserError("invalid RNG state text (" + std::to_string(s.size()) + " bytes)");
  engine_ = e;
  // libstdc++ writes its index last; for prefetch_next_draws only, so any other text gives 0.
  const auto last = s.find_last_of(' ');
  std::size_t at = 0;
  try {
    at = last == std::string::npos ? 0 : std::stoul(s.substr(last + 1));
  } catch (const std::exception&) {
    at = 0;
  }
  position_ = at <= kStateWords ? at : 0;
}

std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t stream) {
  return splitmix64(seed ^ splitmix64(stream + 0x632BE59BD9B4E019ull));
}

}  // namespace rlzoo
