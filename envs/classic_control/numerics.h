// The few Python/NumPy arithmetic rules that Gymnasium's classic-control envs depend on, so
// that our envs reproduce its float64 trajectories bit for bit (with glibc libm, no FMA
// contraction), plus the state-size check every StateAccess::set_state needs.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cmath>
#include <cstddef>
#include <fmt/format.h>
#include <span>
#include <string_view>

#include "core/common/error.h"

namespace rlzoo::classic_control {

// `x ** 2` on a Python float or NumPy scalar calls libm pow(), whose result differs from the
// correctly rounded x * x in the last bit for about one input in a thousand. pow() costs
// ~20 ns, a third of a CartPole step, so the common case is decided exactly without it:
// Dekker's product gives x * x = p + err exactly; glibc's pow is within 0.52 ulp of the exact
// square, so when |err| < 0.47 ulp the only double that close is p itself, and pow(x, 2)
// must return p. Otherwise (about 6% of inputs, and outside the safe exponent range) pow()
// is called. The exponent goes through a volatile so the compiler cannot fold
// pow(x, 2.0) into x * x. tests/envs/numerics_test.cpp checks this against pow().
inline double libm_square(double x) {
  volatile double two = 2.0;
  return std::pow(x, two);
}

inline double py_square(double x) {
  const double ax = std::fabs(x);
  if (!(ax > 0x1p-450 && ax < 0x1p450)) return libm_square(x);  // zero, tiny, huge, inf, nan
  const double p = x * x;
  // Veltkamp split of x into 26-bit halves, then the exact rounding error of x * x.
  const double c = 134217729.0 * x;  // 2^27 + 1
  const double hi = c - (c - x);
  const double lo = x - hi;
  const double err = ((hi * hi - p) + 2.0 * hi * lo) + lo * lo;
  // The gap to the neighbour below p: never larger than the gap above, so the test is safe
  // on both sides (and branch-free: a branch on err's sign mispredicts half the time).
  const double gap = p - std::bit_cast<double>(std::bit_cast<std::uint64_t>(p) - 1);
  if (std::fabs(err) < 0.47 * gap) [[likely]]
    return p;
  return libm_square(x);
}

// Python's and NumPy's float `a % b`: floored modulo, the result has the sign of b (C's fmod
// truncates instead). Written as NumPy's npy_divmod computes it, including the `mod += b`
// step that can round up to exactly b.
inline double py_mod(double a, double b) {
  double mod = std::fmod(a, b);
  if (mod != 0.0) {
    if ((b < 0) != (mod < 0)) mod += b;
  } else {
    mod = std::copysign(0.0, b);
  }
  return mod;
}

// np.clip and Python's min(max(x, lo), hi) on a scalar (no NaN reaches them here).
inline double clip(double x, double lo, double hi) { return std::min(std::max(x, lo), hi); }

// Float32 rounding of a float64 constant, as Gymnasium's float32 Box bounds store it.
constexpr double f32(double x) { return static_cast<double>(static_cast<float>(x)); }

// The user-input check of StateAccess::set_state.
inline void check_state_size(std::string_view env_id, std::span<const double> state, std::size_t expected,
                             std::string_view layout) {
  if (state.size() != expected)
    throw UserError(
        fmt::format("env {}: set_state needs {} values {}, got {}", env_id, expected, layout, state.size()));
}

}  // namespace rlzoo::classic_control
