// The element passes of the fused small-MLP path (rl/nets/fused_mlp.h): bias and activation
// after a layer's product, the activation's derivative and the bias gradient on the way back.
// Torch-free. Compiled for AVX2 and for the baseline, picked at load time; neither uses fused
// multiply-adds, so both round alike.
#pragma once

#include <cstdint>

namespace rlzoo {

enum class FusedActivation { Tanh, Relu };

}  // namespace rlzoo

namespace rlzoo::fused {

// z[r, j] = act(z[r, j] + b[j]) over rows x cols (row-major); no activation when `act` is null.
void bias_activation(float* z, const float* b, std::int64_t rows, std::int64_t cols, const FusedActivation* act);

// z[i] = act(z[i]) over n floats: bias_activation for a product that already added the bias.
void activate(float* z, std::int64_t n, FusedActivation act);

// dz[i] *= act'(.) where y[i] is the activation's output.
void activation_backward(float* dz, const float* y, std::int64_t n, FusedActivation act);

// db[j] += sum over rows of dz[r, j].
void add_column_sums(float* db, const float* dz, std::int64_t rows, std::int64_t cols);

void tanh(const float* x, float* out, std::int64_t n);

}  // namespace rlzoo::fused
