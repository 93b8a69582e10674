// The few Python/NumPy arithmetic rules that Gymnasium's classic-control envs depend on, so
// that our envs reproduce its float64 trajectories bit for bit (with glibc libm, no FMA
// contraction), plus the state-size check every StateAccess::set_state needs.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <fmt/format.h>
#include <span>
#include <string_view>

#include "core/common/error.h"

namespace rlzoo::classic_control {

// `x ** 2` on a Python float or NumPy scalar calls libm pow(), whose result differs from the
// correctly rounded x * x in the last bit for about one input in a thousand. The exponent is
// read through a volatile so that the compiler cannot fold pow(x, 2.0) into x * x.
inline double py_square(double x) {
  volatile double two = 2.0;
  return std::pow(x, two);
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
