#include "rl/nets/gemm.h"

#include <cblas.h>

namespace rlzoo {

void sgemm(Trans trans_a, Trans trans_b, std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* a,
           std::int64_t lda, const float* b, std::int64_t ldb, float beta, float* c, std::int64_t ldc) {
  cblas_sgemm(CblasRowMajor, trans_a == Trans::Yes ? CblasTrans : CblasNoTrans,
              trans_b == Trans::Yes ? CblasTrans : CblasNoTrans, static_cast<int>(m), static_cast<int>(n),
              static_cast<int>(k), alpha, a, static_cast<int>(lda), b, static_cast<int>(ldb), beta, c,
              static_cast<int>(ldc));
}

}  // namespace rlzoo
