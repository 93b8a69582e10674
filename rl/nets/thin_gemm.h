// Matrix products with one thin side: at most 7 along the summed dimension k of A B or A B^T,
// or, for A^T B, at most 3 rows or 4 columns of C. A small network's input and output layers
// and their gradients are such products, CartPole's 4 -> 64 and 64 -> 2 for one. OpenBLAS packs both operands of every product, which costs
// more than the arithmetic at these sizes (a 256 x 64 x 4 product took 13.6 us through cblas
// and 6.7 us here in a standalone loop on a first-generation Zen).
//
// Each element is one chain of fused multiply-adds over k in order, starting from zero, then
// added to beta x C: the order OpenBLAS's Haswell and Zen sgemm kernels sum in at these shapes
// (their full tiles sum otherwise from k = 8 on, hence the limits), so the results are the same
// bit for bit (tests/rl/thin_gemm_test.cpp compares them with the BLAS call).
// Other kernels (SkylakeX's small-matrix one, other libraries) may round otherwise, so the thin
// path is taken only under those two; elsewhere the caller keeps the BLAS call.
#pragma once

#include <cstdint>

#include "rl/nets/gemm.h"

namespace rlzoo {

// Whether this process runs OpenBLAS's Haswell or Zen kernels on a CPU with AVX2 and FMA and
// without AVX-512: the case whose rounding rlzoo's own loops reproduce. Found once.
bool own_loops_match_blas();

// Whether a product with beta 1 onto C already holding a bias (each row a copy of it) gives the
// same bits as the product with beta 0 and then the bias added: true where own_loops_match_blas()
// and k <= 256, one of the kernels' k blocks, so that a product's sum meets C once. Filling the
// bias first saves the kernels' pass that zeroes C (tests/rl/thin_gemm_test.cpp checks both).
bool bias_first_matches_blas(std::int64_t k);

// C = alpha op(A) op(B) + beta C as sgemm() (rl/nets/gemm.h) defines it, computed here and true
// when the shape is thin, alpha is 1, beta is 0 or 1, k <= 256 (one of OpenBLAS's k blocks) and
// own_loops_match_blas(); otherwise false, with C untouched.
bool thin_sgemm(Trans trans_a, Trans trans_b, std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
                const float* a, std::int64_t lda, const float* b, std::int64_t ldb, float beta, float* c,
                std::int64_t ldc);

}  // namespace rlzoo
