// Whether every float of a raw array is finite (no NaN, no Inf): the check every env step
// makes on its observation, so it is written for a handful of elements as much as for a
// vector env's whole batch.
//
// x - x is 0 for a finite x and NaN for NaN or Inf, and a NaN stays in a sum. Float32 arrays
// are summed four at a time in one SSE register (a dozen instructions for CartPole's four
// floats, where a per-element loop that GCC vectorises for any n took ~35, a tenth of a whole
// step); float64 ones by a scalar loop.
#pragma once

#include <cstddef>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace rlzoo {

[[gnu::always_inline]] inline bool float32s_are_finite(const float* v, std::size_t n) {
#if defined(__SSE2__)
  // Pointer loops: a trip count computed up front cost a third of the instructions for n = 4.
  __m128 acc = _mm_setzero_ps();
  const float* p = v;
  for (const float* const groups_end = v + (n & ~std::size_t{3}); p != groups_end; p += 4) {
    const __m128 x = _mm_loadu_ps(p);
    acc = _mm_add_ps(acc, _mm_sub_ps(x, x));
  }
  for (const float* const end = v + n; p != end; ++p) acc = _mm_add_ss(acc, _mm_set_ss(*p - *p));
  return _mm_movemask_ps(_mm_cmpunord_ps(acc, acc)) == 0;
#else
  float acc = 0;
  for (std::size_t i = 0; i < n; ++i) acc += v[i] - v[i];
  return acc == 0;
#endif
}

[[gnu::always_inline]] inline bool float64s_are_finite(const double* v, std::size_t n) {
  double acc = 0;
  for (std::size_t i = 0; i < n; ++i) {
    acc += v[i] - v[i];
#if defined(__x86_64__)
    asm("" : "+x"(acc));  // keeps GCC from vectorising a loop over a few elements
#endif
  }
  return acc == 0;
}

}  // namespace rlzoo
