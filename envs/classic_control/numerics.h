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
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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

// Two doubles in the lanes of one SSE2 register (GCC's vector extension: +, -, *, / act lane by
// lane with the same IEEE rounding as on a double, and a double operand is broadcast). An env
// whose arithmetic is written once as a template over double and Double2 steps two envs at
// the price of one (see Env::step_run_paired).
using Double2 = double __attribute__((vector_size(16)));

// Bit k set where lane k of a is below b (false for a NaN, as on doubles). Written with SSE2's
// compare and movemask: GCC's own lane comparisons rebuild their all-ones masks lane by lane.
inline int lanes_below(Double2 a, Double2 b) {
#if defined(__SSE2__)
  return _mm_movemask_pd(_mm_cmplt_pd(a, b));
#else
  return (a[0] < b[0] ? 1 : 0) | (a[1] < b[1] ? 2 : 0);
#endif
}

// py_square of each lane: the exact fast path of both lanes in one go, py_square(double) for
// a lane outside it.
inline Double2 py_square(Double2 x) {
  using Bits2 = std::uint64_t __attribute__((vector_size(16)));
  const Double2 p = x * x;
  const Double2 c = Double2{134217729.0, 134217729.0} * x;
  const Double2 hi = c - (c - x);
  const Double2 lo = x - hi;
  const Double2 err = ((hi * hi - p) + Double2{2.0, 2.0} * hi * lo) + lo * lo;
  const Double2 gap = p - reinterpret_cast<Double2>(reinterpret_cast<Bits2>(p) - 1);
  const Bits2 abs_mask = Bits2{} + 0x7FFF'FFFF'FFFF'FFFFull;
  const Double2 ax = reinterpret_cast<Double2>(reinterpret_cast<Bits2>(x) & abs_mask);
  const Double2 abs_err = reinterpret_cast<Double2>(reinterpret_cast<Bits2>(err) & abs_mask);
  const Double2 tiny{0x1p-450, 0x1p-450}, huge{0x1p450, 0x1p450};
  if ((lanes_below(tiny, ax) & lanes_below(ax, huge) & lanes_below(abs_err, Double2{0.47, 0.47} * gap)) == 3) [[likely]]
    return p;
  return Double2{py_square(x[0]), py_square(x[1])};
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
