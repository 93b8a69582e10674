// float32s_are_finite / float64s_are_finite: every length and every position of a NaN or Inf
// is caught, and finite values at the edges of the range (largest, smallest, subnormal, -0)
// pass.
#include <gtest/gtest.h>

#include <limits>
#include <vector>

#include "core/common/finite_floats.h"

namespace rlzoo {
namespace {

template <class T>
bool are_finite(const std::vector<T>& v) {
  if constexpr (sizeof(T) == 4) return float32s_are_finite(v.data(), v.size());
  else return float64s_are_finite(v.data(), v.size());
}

template <class T>
void check_every_length_and_position() {
  using L = std::numeric_limits<T>;
  const T edges[] = {L::max(), -L::max(), L::min(), L::denorm_min(), T(-0.0), T(1.5), T(-3.25)};
  const T bad[] = {L::quiet_NaN(), -L::quiet_NaN(), L::infinity(), -L::infinity()};
  for (std::size_t n = 0; n <= 19; ++n) {
    std::vector<T> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = edges[i % std::size(edges)];
    ASSERT_TRUE(are_finite(v)) << "n " << n;
    for (std::size_t i = 0; i < n; ++i)
      for (const T b : bad) {
        const T kept = v[i];
        v[i] = b;
        ASSERT_FALSE(are_finite(v)) << "n " << n << ", position " << i << ", value " << b;
        v[i] = kept;
      }
  }
}

TEST(FiniteFloats, Float32CatchesNanAndInfAtEveryPositionOfEveryLength) { check_every_length_and_position<float>(); }

TEST(FiniteFloats, Float64CatchesNanAndInfAtEveryPositionOfEveryLength) { check_every_length_and_position<double>(); }

}  // namespace
}  // namespace rlzoo
