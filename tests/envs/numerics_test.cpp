// py_square must return exactly what libm's pow(x, 2) returns (Gymnasium's `x ** 2`), for
// every input: the fast path may only skip pow() where the result is provably the same.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>

#include "core/common/rng.h"
#include "envs/classic_control/numerics.h"

namespace rlzoo::classic_control {
namespace {

void expect_same(double x) {
  const double want = libm_square(x), got = py_square(x);
  ASSERT_EQ(std::bit_cast<std::uint64_t>(got), std::bit_cast<std::uint64_t>(want)) << "x = " << x;
}

TEST(Numerics, PySquareMatchesPowOnMillionsOfInputs) {
  Rng rng(2024);
  int differs_from_product = 0;
  for (int i = 0; i < 3'000'000; ++i) {
    // Values across the magnitudes the envs see (|x| < 1e3) and beyond.
    const double x = (rng.uniform() - 0.5) * std::ldexp(1.0, static_cast<int>(rng.below(40)) - 20);
    expect_same(x);
    if (py_square(x) != x * x) ++differs_from_product;
  }
  // The reason py_square exists: pow differs from x * x for some inputs.
  EXPECT_GT(differs_from_product, 0);
}

TEST(Numerics, PySquareEdgeValues) {
  const double inf = std::numeric_limits<double>::infinity();
  for (double x : {0.0, -0.0, 1.0, -1.0, 0.5, 2.0, std::sqrt(2.0), 1e-300, 1e300, 0x1p-450, 0x1p450,
                   std::numeric_limits<double>::denorm_min(), std::numeric_limits<double>::max(), inf, -inf})
    expect_same(x);
  EXPECT_TRUE(std::isnan(py_square(std::nan(""))));
  // Just above and below powers of two, where the neighbour gaps differ.
  for (int e = -30; e <= 30; ++e) {
    const double p = std::ldexp(1.0, e);
    expect_same(std::sqrt(p));
    expect_same(std::nextafter(std::sqrt(p), 0.0));
    expect_same(std::nextafter(std::sqrt(p), inf));
  }
}

// The two-lane py_square (an env stepping two envs at once) gives each lane what the scalar one
// gives, whichever lane leaves the fast path: random pairs, and every pairing of edge values.
TEST(Numerics, PySquareOfTwoLanesIsPySquareOfEach) {
  const auto expect_lanes = [](double a, double b) {
    const Double2 got = py_square(Double2{a, b});
    ASSERT_EQ(std::bit_cast<std::uint64_t>(got[0]), std::bit_cast<std::uint64_t>(py_square(a))) << a << ", " << b;
    ASSERT_EQ(std::bit_cast<std::uint64_t>(got[1]), std::bit_cast<std::uint64_t>(py_square(b))) << a << ", " << b;
  };
  Rng rng(7);
  for (int i = 0; i < 500'000; ++i) {
    const double a = (rng.uniform() - 0.5) * std::ldexp(1.0, static_cast<int>(rng.below(40)) - 20);
    const double b = (rng.uniform() - 0.5) * std::ldexp(1.0, static_cast<int>(rng.below(40)) - 20);
    expect_lanes(a, b);
  }
  const double inf = std::numeric_limits<double>::infinity();
  const double edges[] = {0.0, -0.0, 1.0, std::sqrt(2.0), 1e-300, 1e300, 0x1p-450, 0x1p450,
                          std::numeric_limits<double>::denorm_min(), inf, -inf, std::nan("")};
  for (double a : edges) {
    for (double b : edges) {
      const Double2 got = py_square(Double2{a, b});
      for (int k = 0; k < 2; ++k) {
        const double want = py_square(k == 0 ? a : b);
        if (std::isnan(want)) EXPECT_TRUE(std::isnan(got[k]));
        else EXPECT_EQ(std::bit_cast<std::uint64_t>(got[k]), std::bit_cast<std::uint64_t>(want)) << a << ", " << b;
      }
    }
  }
}

// lanes_below: bit k for lane k, false where a NaN is compared.
TEST(Numerics, LanesBelowSetsOneBitPerLane) {
  EXPECT_EQ(lanes_below(Double2{1.0, 3.0}, Double2{2.0, 2.0}), 1);
  EXPECT_EQ(lanes_below(Double2{3.0, 1.0}, Double2{2.0, 2.0}), 2);
  EXPECT_EQ(lanes_below(Double2{1.0, 1.0}, Double2{2.0, 2.0}), 3);
  EXPECT_EQ(lanes_below(Double2{2.0, std::nan("")}, Double2{2.0, 5.0}), 0);
}

TEST(Numerics, PyModIsFloored) {
  EXPECT_DOUBLE_EQ(py_mod(-1.0, 3.0), 2.0);
  EXPECT_DOUBLE_EQ(py_mod(1.0, -3.0), -2.0);
  EXPECT_DOUBLE_EQ(py_mod(7.0, 3.0), 1.0);
}

}  // namespace
}  // namespace rlzoo::classic_control
