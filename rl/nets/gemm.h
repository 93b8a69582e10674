// Single-precision matrix products on row-major matrices through the system BLAS (the
// libblas.so.3 that Debian's LibTorch calls too: OpenBLAS where installed), for code that
// multiplies small matrices many times and cannot afford a LibTorch operation's dispatch per
// product (the fused small-MLP path, rl/nets/fused_mlp.h, and `rlzoo bench learner`). Products
// with a thin side run in rlzoo's own loops where those round as the BLAS call would
// (rl/nets/thin_gemm.h).
#pragma once

#include <cstdint>

namespace rlzoo {

enum class Trans : bool { No = false, Yes = true };

// C[m, n] = alpha * op(A) op(B) + beta * C, all row-major: op(A) is [m, k] (A is [k, m] when
// transposed), op(B) is [k, n]; lda, ldb, ldc are the row strides of A, B and C as stored.
// A thread's first call first runs one 384^3 product of its own (~4 ms; gemm.cpp says why).
void sgemm(Trans trans_a, Trans trans_b, std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* a,
           std::int64_t lda, const float* b, std::int64_t ldb, float beta, float* c, std::int64_t ldc);

}  // namespace rlzoo
