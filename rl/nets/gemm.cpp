#include "rl/nets/gemm.h"

#include <cblas.h>

#include <cstring>
#include <vector>

#include "rl/nets/thin_gemm.h"

namespace rlzoo {

namespace {

// OpenBLAS packs a product's operands into a buffer it maps for the calling thread and touches
// only as far as that thread's products have reached. Its Haswell/Zen sgemm kernel prefetches
// ahead of the packed panels, and on a first-generation Zen a prefetch into a page not touched
// yet stalls: in PPO's CartPole training ~40% of the kernel's samples (perf) sat on that one
// prefetch, and a thread whose products are all small ran them ~1.6x slower than one that had
// once run a large product. One 384^3 product per thread (~4 ms here) touches that part of the
// buffer; the results of later products are the same either way.
void touch_blas_buffer() {
  constexpr int n = 384;
  std::vector<float> a(n * n, 0.0f), b(n * n, 0.0f), c(n * n);
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a.data(), n, b.data(), n, 0.0f, c.data(), n);
}

}  // namespace

void sgemm(Trans trans_a, Trans trans_b, std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* a,
           std::int64_t lda, const float* b, std::int64_t ldb, float beta, float* c, std::int64_t ldc) {
  thread_local bool buffer_touched = false;
  if (!buffer_touched) {
    buffer_touched = true;
    touch_blas_buffer();
  }
  if (thin_sgemm(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)) return;
  if (beta == 0.0f && own_loops_match_blas() && m > 0 && n > 0) {
    // OpenBLAS zeroes C for beta 0 in a pass of its own, slower than filling C first (a 256 x 64
    // x 64 product took 43.2 us with beta 0, 37.6 us with C filled and beta 1, in a standalone
    // loop on the AMD machine); C = +0, then the sum added to it once, either way.
    if (ldc == n) {
      std::memset(c, 0, static_cast<std::size_t>(m * n) * sizeof(float));
    } else {
      for (std::int64_t i = 0; i < m; ++i) std::memset(c + i * ldc, 0, static_cast<std::size_t>(n) * sizeof(float));
    }
    beta = 1.0f;
  }
  cblas_sgemm(CblasRowMajor, trans_a == Trans::Yes ? CblasTrans : CblasNoTrans,
              trans_b == Trans::Yes ? CblasTrans : CblasNoTrans, static_cast<int>(m), static_cast<int>(n),
              static_cast<int>(k), alpha, a, static_cast<int>(lda), b, static_cast<int>(ldb), beta, c,
              static_cast<int>(ldc));
}

}  // namespace rlzoo
