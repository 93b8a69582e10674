// Whether every float of a raw array is finite (no NaN, no Inf): the check every env step
// makes on its observation, so it is written for a handful of elements as much as for a
// vector env's whole batch.
//
// x - x is 0 for a finite x and NaN for NaN or Inf, and a NaN stays in a sum. Float32 arrays
// of four or more are summed four at a time in one SSE register: groups from the start, then
// the last four (overlapping the groups when n is not a multiple of four), so there is no
// scalar tail and CartPole's four floats take one load and no loop (8 instructions, where a
// loop with a scalar tail took ~20 and a per-element loop that GCC vectorises for any n ~35,
// a tenth of a whole step). Shorter arrays and float64 ones take a scalar loop.
#pragma once

#include <cstddef>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace rlzoo {

[[gnu::always_inline]] inline bool float32s_are_finite(const float* v, std::size_t n) {
#if defined(__SSE2__)
  if (n >= 4) [[likely]] {
    const float* const last = v + (n - 4);
    const __m128 x = _mm_loadu_ps(last);
    __m128 acc = _mm_sub_ps(x, x);
    for (const float* p = v; p < last; p += 4) {
      const __m128 y = _mm_loadu_ps(p);
      acc = _mm_add_ps(acc, _mm_sub_ps(y, y));
    }
    return _mm_movemask_ps(_mm_cmpunord_ps(acc, acc)) == 0;
  }
#endif
  float acc = 0;
  for (std::size_t i = 0; i < n; ++i) {
    acc += v[i] - v[i];
#if defined(__x86_64__)
    asm("" : "+x"(acc));  // keeps GCC from vectorising a loop over a few elements
#endif
  }
  return acc == 0;
}

// Converts n doubles to float32 into dst and returns whether every float is finite. The floats
// are checked in registers before they are stored: an env that writes its observation this way
// can set StepResult::checked_finite, and Env::step then does not read the row back (a load of
// what was just stored, at the end of a step's long chain of dependent arithmetic, cost a
// CartPole step ~7 ns on an AMD EPYC core where the whole step takes ~70). Four doubles take
// two conversions and one store.
[[gnu::always_inline]] inline bool store_float32s_checked(const double* src, float* dst, std::size_t n) {
#if defined(__SSE2__)
  if (n == 4) {
    const __m128 f = _mm_movelh_ps(_mm_cvtpd_ps(_mm_loadu_pd(src)), _mm_cvtpd_ps(_mm_loadu_pd(src + 2)));
    _mm_storeu_ps(dst, f);
    const __m128 zero_if_finite = _mm_sub_ps(f, f);
    return _mm_movemask_ps(_mm_cmpunord_ps(zero_if_finite, zero_if_finite)) == 0;
  }
#endif
  float acc = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const float f = static_cast<float>(src[i]);
    dst[i] = f;
    acc += f - f;
#if defined(__x86_64__)
    asm("" : "+x"(acc));  // keeps GCC from vectorising a loop over a few elements
#endif
  }
  return acc == 0;
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
