// Products with an input that has few nonzero values, DouZero's 0/1 features among them (a
// history row holds ~2 ones among 162 values, a state ~50 among 430, a move ~2.4 among 54):
// each row of the result sums the weight rows at its input's nonzero columns, instead of a
// dense product over every column. Used by DouZeroNet's CPU inference (douzero_inference.h)
// and, with its gradient, by the learner's forward pass (DouZeroNetImpl::forward_sparse).
#pragma once

#include <cstdint>

#include "core/torch/tensor.h"

namespace rlzoo::dmc {

// out[r, :] += sum over the nonzero x[r, j] of x[r, j] * wt[j, :], for r < rows; x is [rows, k],
// wt [k, n] and out [rows, n], row-major and contiguous.
void add_sparse_rows(const float* x, std::int64_t rows, std::int64_t k, const float* wt, std::int64_t n, float* out);

// y = x w^T + b for x [rows, k] (float32 on the CPU, no gradient of its own, few nonzero values),
// w [n, k] and b [n] (may be undefined): the same numbers as torch::linear to float rounding, with
// w's and b's gradients computed the same way (sums over the rows' nonzero columns).
torch::Tensor sparse_input_linear(const torch::Tensor& x, const torch::Tensor& w, const torch::Tensor& b);

}  // namespace rlzoo::dmc
