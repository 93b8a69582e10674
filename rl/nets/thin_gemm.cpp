#include "rl/nets/thin_gemm.h"

#include <immintrin.h>

#include <cmath>
#include <vector>

#include "core/platform/blas.h"

namespace rlzoo {

namespace {

using i64 = std::int64_t;

// How C's old value enters: beta 0 (C is overwritten) or 1 (added to); other betas go to BLAS.
enum class BetaKind { Zero, One };

// Every function below ends an element as OpenBLAS does: C (0 for beta 0) plus the chain's sum,
// added once.
#define RLZOO_AVX2_FMA __attribute__((target("avx2,fma")))

RLZOO_AVX2_FMA inline float finish(float acc, BetaKind kind, float c) { return acc + (kind == BetaKind::Zero ? 0.0f : c); }

template <BetaKind kKind>
RLZOO_AVX2_FMA inline __m256 finish8(__m256 acc, const float* c) {
  if constexpr (kKind == BetaKind::Zero) return _mm256_add_ps(acc, _mm256_setzero_ps());
  return _mm256_add_ps(acc, _mm256_loadu_ps(c));
}

// C[i, :] = sum over kk < K of A[i, kk] B[kk, :] for every row i: B's K rows held at stride ldb,
// eight columns of C at a time, A's K values of a row broadcast once.
template <int K, BetaKind kKind>
RLZOO_AVX2_FMA void rows_small_k(i64 m, i64 n, const float* a, i64 lda, const float* b, i64 ldb, float* c,
                                 i64 ldc) {
  const i64 n8 = n & ~i64{7};
  for (i64 i = 0; i < m; ++i) {
    const float* ai = a + i * lda;
    float* ci = c + i * ldc;
    __m256 av[K];
    for (int kk = 0; kk < K; ++kk) av[kk] = _mm256_broadcast_ss(ai + kk);
    for (i64 j = 0; j < n8; j += 8) {
      __m256 acc = _mm256_setzero_ps();
      for (int kk = 0; kk < K; ++kk) acc = _mm256_fmadd_ps(av[kk], _mm256_loadu_ps(b + kk * ldb + j), acc);
      _mm256_storeu_ps(ci + j, finish8<kKind>(acc, ci + j));
    }
    for (i64 j = n8; j < n; ++j) {
      float acc = 0.0f;
      for (int kk = 0; kk < K; ++kk) acc = std::fma(ai[kk], b[kk * ldb + j], acc);
      ci[j] = finish(acc, kKind, ci[j]);
    }
  }
}

template <BetaKind kKind>
RLZOO_AVX2_FMA void rows_small_k(i64 m, i64 n, i64 k, const float* a, i64 lda, const float* b, i64 ldb,
                                 float* c, i64 ldc) {
  switch (k) {
    case 1: return rows_small_k<1, kKind>(m, n, a, lda, b, ldb, c, ldc);
    case 2: return rows_small_k<2, kKind>(m, n, a, lda, b, ldb, c, ldc);
    case 3: return rows_small_k<3, kKind>(m, n, a, lda, b, ldb, c, ldc);
    case 4: return rows_small_k<4, kKind>(m, n, a, lda, b, ldb, c, ldc);
    case 5: return rows_small_k<5, kKind>(m, n, a, lda, b, ldb, c, ldc);
    case 6: return rows_small_k<6, kKind>(m, n, a, lda, b, ldb, c, ldc);
    default: return rows_small_k<7, kKind>(m, n, a, lda, b, ldb, c, ldc);
  }
}

// out(r, j) = sum over kk < k of A[kk, r] B[kk, j] for r < M (A's rows at stride lda, M <= 4),
// where out(r, j) is c[r * rs + j * cs]: C itself for a product A^T B with M rows, or C^T
// (rs = 1, cs = ldc) for one with M columns, whose elements are the same chains with the
// factors of each product swapped. V vectors of eight columns at a time.
template <int M, int V, BetaKind kKind>
RLZOO_AVX2_FMA void columns_block(i64 j, i64 k, const float* a, i64 lda, const float* b, i64 ldb, float* c,
                                  i64 rs, i64 cs) {
  __m256 acc[M][V];
  #pragma GCC unroll 8
  for (int r = 0; r < M; ++r)
    #pragma GCC unroll 8
    for (int v = 0; v < V; ++v) acc[r][v] = _mm256_setzero_ps();
  for (i64 kk = 0; kk < k; ++kk) {
    const float* bk = b + kk * ldb + j;
    __m256 bv[V];
    #pragma GCC unroll 8
    for (int v = 0; v < V; ++v) bv[v] = _mm256_loadu_ps(bk + 8 * v);
    #pragma GCC unroll 8
    for (int r = 0; r < M; ++r) {
      const __m256 av = _mm256_broadcast_ss(a + kk * lda + r);
      #pragma GCC unroll 8
      for (int v = 0; v < V; ++v) acc[r][v] = _mm256_fmadd_ps(av, bv[v], acc[r][v]);
    }
  }
  if (cs == 1) {
    #pragma GCC unroll 8
    for (int r = 0; r < M; ++r)
      #pragma GCC unroll 8
      for (int v = 0; v < V; ++v) {
        float* out = c + r * rs + j + 8 * v;
        _mm256_storeu_ps(out, finish8<kKind>(acc[r][v], out));
      }
    return;
  }
  // C^T: the sums leave the registers in one go (finishing them lane by lane from `acc` itself
  // made GCC keep `acc` on the stack, storing every accumulator on every step of k).
  alignas(32) float sums[M][V][8];
  #pragma GCC unroll 8
  for (int r = 0; r < M; ++r)
    #pragma GCC unroll 8
    for (int v = 0; v < V; ++v) _mm256_store_ps(sums[r][v], acc[r][v]);
  #pragma GCC unroll 8
  for (int r = 0; r < M; ++r)
    #pragma GCC unroll 8
    for (int v = 0; v < V; ++v)
      for (int q = 0; q < 8; ++q) {
        float* out = c + r * rs + (j + 8 * v + q) * cs;
        *out = finish(sums[r][v][q], kKind, *out);
      }
}

template <int M, BetaKind kKind>
RLZOO_AVX2_FMA void small_side_columns(i64 n, i64 k, const float* a, i64 lda, const float* b, i64 ldb,
                                       float* c, i64 rs, i64 cs) {
  constexpr int kWide = M <= 2 ? 4 : 2;  // accumulators: M x kWide <= 8 of the 16 registers
  i64 j = 0;
  for (; j + 8 * kWide <= n; j += 8 * kWide) columns_block<M, kWide, kKind>(j, k, a, lda, b, ldb, c, rs, cs);
  for (; j + 8 <= n; j += 8) columns_block<M, 1, kKind>(j, k, a, lda, b, ldb, c, rs, cs);
  for (; j < n; ++j)
    for (int r = 0; r < M; ++r) {
      float acc = 0.0f;
      for (i64 kk = 0; kk < k; ++kk) acc = std::fma(a[kk * lda + r], b[kk * ldb + j], acc);
      float* out = c + r * rs + j * cs;
      *out = finish(acc, kKind, *out);
    }
}

template <BetaKind kKind>
RLZOO_AVX2_FMA void small_side_columns(i64 rows, i64 n, i64 k, const float* a, i64 lda, const float* b, i64 ldb,
                                       float* c, i64 rs, i64 cs) {
  switch (rows) {
    case 1: return small_side_columns<1, kKind>(n, k, a, lda, b, ldb, c, rs, cs);
    case 2: return small_side_columns<2, kKind>(n, k, a, lda, b, ldb, c, rs, cs);
    case 3: return small_side_columns<3, kKind>(n, k, a, lda, b, ldb, c, rs, cs);
    default: return small_side_columns<4, kKind>(n, k, a, lda, b, ldb, c, rs, cs);
  }
}

template <BetaKind kKind>
RLZOO_AVX2_FMA bool thin_product(Trans trans_a, Trans trans_b, i64 m, i64 n, i64 k, const float* a, i64 lda,
                                 const float* b, i64 ldb, float* c, i64 ldc) {
  // The limits are where the BLAS kernels' sums are single chains too: their full 8 x 4 tiles
  // (column-major C), at k >= 8, sum in another order (tests/rl/thin_gemm_test.cpp).
  if (trans_a == Trans::No && trans_b == Trans::No && k <= 7) {
    rows_small_k<kKind>(m, n, k, a, lda, b, ldb, c, ldc);
    return true;
  }
  if (trans_a == Trans::No && trans_b == Trans::Yes && k <= 7) {
    // B is [n, k]: its transpose, [k, n], as rows to broadcast against.
    thread_local std::vector<float> bt;
    bt.resize(static_cast<std::size_t>(k * n));
    for (i64 j = 0; j < n; ++j)
      for (i64 kk = 0; kk < k; ++kk) bt[static_cast<std::size_t>(kk * n + j)] = b[j * ldb + kk];
    rows_small_k<kKind>(m, n, k, a, lda, bt.data(), n, c, ldc);
    return true;
  }
  if (trans_a == Trans::Yes && trans_b == Trans::No && m <= 3) {
    small_side_columns<kKind>(m, n, k, a, lda, b, ldb, c, ldc, 1);
    return true;
  }
  if (trans_a == Trans::Yes && trans_b == Trans::No && n <= 4) {
    small_side_columns<kKind>(n, m, k, b, ldb, a, lda, c, 1, ldc);
    return true;
  }
  return false;
}

}  // namespace

bool own_loops_match_blas() {
  static const bool match = [] {
    if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) return false;
    // With AVX-512 OpenBLAS sends small row-major products with beta 0 to its sgemm_direct
    // kernel whatever core it names, so the kernels' order would not be the one checked here.
    if (__builtin_cpu_supports("avx512f")) return false;
    const BlasInfo blas = detect_blas();
    if (!blas.is_openblas) return false;
    return blas.name.find("Haswell") != std::string::npos || blas.name.find(" Zen") != std::string::npos;
  }();
  return match;
}

bool bias_first_matches_blas(std::int64_t k) { return k <= 256 && own_loops_match_blas(); }

bool thin_sgemm(Trans trans_a, Trans trans_b, std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
                const float* a, std::int64_t lda, const float* b, std::int64_t ldb, float beta, float* c,
                std::int64_t ldc) {
  if (alpha != 1.0f || (beta != 0.0f && beta != 1.0f) || m <= 0 || n <= 0 || k <= 0 || k > 256) return false;
  if (!own_loops_match_blas()) return false;
  if (beta == 0.0f) return thin_product<BetaKind::Zero>(trans_a, trans_b, m, n, k, a, lda, b, ldb, c, ldc);
  return thin_product<BetaKind::One>(trans_a, trans_b, m, n, k, a, lda, b, ldb, c, ldc);
}

}  // namespace rlzoo
