#include "rl/nets/fused_mlp_kernels.h"

#include <bit>
#include <cmath>

namespace rlzoo::fused {

namespace {

// tanh in float with a few ulp of error, written so that the compiler vectorises it (no calls,
// no branches): below |x| = 0.5 the odd Taylor series to x^13 (the next term is < 5e-8 there);
// above, (1 - e) / (1 + e) with e = exp(-2|x|) from 2^k times a degree-7 polynomial in the
// remainder (Cody-Waite reduction, ln 2 in two parts), |x| clamped at 9 where tanh rounds to 1.
// NaN stays NaN.
inline float tanh_one(float x) {
  const float a = std::fabs(x);
  const float a2 = a * a;
  float p = -929569.0f / 638512875.0f;
  p = p * a2 + 21844.0f / 6081075.0f;
  p = p * a2 - 1382.0f / 155925.0f;
  p = p * a2 + 62.0f / 2835.0f;
  p = p * a2 - 17.0f / 315.0f;
  p = p * a2 + 2.0f / 15.0f;
  p = p * a2 - 1.0f / 3.0f;
  const float small = a + a * a2 * p;
  const float t = -2.0f * (a < 9.0f ? a : 9.0f);  // NaN: 9, and NaN is put back below
  const float kf = (t * 1.44269504f + 12582912.0f) - 12582912.0f;  // round to nearest (1.5 x 2^23)
  const float r = (t - kf * 0.693145751953125f) - kf * 1.428606765330187e-6f;
  float q = 1.0f / 5040.0f;
  q = q * r + 1.0f / 720.0f;
  q = q * r + 1.0f / 120.0f;
  q = q * r + 1.0f / 24.0f;
  q = q * r + 1.0f / 6.0f;
  q = q * r + 0.5f;
  q = q * r + 1.0f;
  q = q * r + 1.0f;
  const float e = q * std::bit_cast<float>((static_cast<std::int32_t>(kf) + 127) << 23);
  const float large = (1.0f - e) / (1.0f + e);
  const float y = std::copysign(a < 0.5f ? small : large, x);
  return a == a ? y : x;
}

}  // namespace

__attribute__((target_clones("avx2", "default"))) void bias_activation(float* z, const float* b, std::int64_t rows,
                                                                        std::int64_t cols, const FusedActivation* act) {
  for (std::int64_t r = 0; r < rows; ++r) {
    float* row = z + r * cols;
    if (act == nullptr) {
      for (std::int64_t j = 0; j < cols; ++j) row[j] += b[j];
    } else if (*act == FusedActivation::Tanh) {
      for (std::int64_t j = 0; j < cols; ++j) row[j] = tanh_one(row[j] + b[j]);
    } else {
      for (std::int64_t j = 0; j < cols; ++j) {
        const float v = row[j] + b[j];
        row[j] = v > 0.0f ? v : 0.0f;
      }
    }
  }
}

__attribute__((target_clones("avx2", "default"))) void activation_backward(float* dz, const float* y, std::int64_t n,
                                                                            FusedActivation act) {
  if (act == FusedActivation::Tanh) {
    for (std::int64_t i = 0; i < n; ++i) dz[i] = dz[i] * (1.0f - y[i] * y[i]);
  } else {
    for (std::int64_t i = 0; i < n; ++i) dz[i] = y[i] > 0.0f ? dz[i] : 0.0f;
  }
}

__attribute__((target_clones("avx2", "default"))) void add_column_sums(float* db, const float* dz, std::int64_t rows,
                                                                        std::int64_t cols) {
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* row = dz + r * cols;
    for (std::int64_t j = 0; j < cols; ++j) db[j] += row[j];
  }
}

__attribute__((target_clones("avx2", "default"))) void tanh(const float* x, float* out, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) out[i] = tanh_one(x[i]);
}

}  // namespace rlzoo::fused
