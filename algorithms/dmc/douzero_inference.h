// DouZeroNet's factorised Q-values (DouZeroNetImpl::q_values) for inference on the CPU, in
// BLAS calls and plain loops instead of LibTorch operations. DouZeroNetImpl::q_values takes
// this path when its inputs and parameters are float32 on the CPU and no gradient is recorded;
// the numbers agree with the LibTorch path to float rounding (tests/algorithms/dmc_net_test.cpp).
//
// What makes it faster (one thread, a seat's share of 64 games: ~21 decisions, ~120 candidates):
//  - The network's inputs are DouZero's 0/1 features and they are sparse: a history row has ~2
//    ones among its 162 values, a state ~50 among 430, a move ~2.4 among 54. The LSTM's input
//    product and the first layer's state and action parts therefore add one weight row per
//    nonzero feature (the transposed weights, SparseInputWeights) instead of running a dense
//    product over every feature: they were 27% of the time through LibTorch.
//  - The LSTM's 5 steps run without a LibTorch operation per gate and step (the first with no
//    recurrent product: its state is zero); sigmoid is 0.5 tanh(x / 2) + 0.5 with rlzoo's
//    vectorised tanh (rl/nets/fused_mlp_kernels.h).
//  - The 512-wide layers are direct BLAS products into reused buffers, bias and ReLU in one pass.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "algorithms/dmc/douzero_net.h"

namespace rlzoo::dmc {

// The weights of the sparse inputs, one contiguous row of 512 per input feature: the
// transposes of lstm.weight_ih_l0 and of dense1's columns after the LSTM's.
struct SparseInputWeights {
  std::vector<float> lstm_ih;  // [162][512]
  std::vector<float> dense1;   // [state_dim + 54][512]
  // The parameters they were made from: storage and in-place version (optimizer steps, copies
  // of new weights and checkpoint loads all bump it).
  const void* lstm_ih_data = nullptr;
  std::int64_t lstm_ih_version = -1;
  const void* dense1_data = nullptr;
  std::int64_t dense1_version = -1;
};

// Builds the transposes of a net's weights `w` (DouZeroNetImpl::weights()).
std::shared_ptr<const SparseInputWeights> make_sparse_input_weights(const DouZeroNetImpl::Weights& w);
// Whether `s` was made from the weights `w` as they are now. Never for weights made under
// torch::InferenceMode, which keep no version counter.
bool sparse_input_weights_current(const SparseInputWeights& s, const DouZeroNetImpl::Weights& w);

// q [a] for d decisions of a net with weights `w` and `sparse` made from them: z [d, 5, 162],
// x [d, state_dim], actions [a, 54], decision_of [a] (the decision of each candidate row, in
// [0, d)); all row-major. Uses thread-local scratch buffers.
void factorised_q_values_cpu(const DouZeroNetImpl::Weights& w, const SparseInputWeights& sparse, const float* z,
                             const float* x, std::int64_t state_dim, std::int64_t d, const float* actions,
                             const std::int64_t* decision_of, std::int64_t a, float* q);

// The floating-point operations factorised_q_values_cpu performs for d decisions and a
// candidates whose inputs (z, x and the actions together) hold `nonzero_inputs` nonzero values:
// the products' multiply-adds count 2, a sparse input 2 x 512 per nonzero value; the element
// passes (bias, activations) are not counted.
double factorised_q_values_flops(std::int64_t d, std::int64_t a, std::int64_t nonzero_inputs);

}  // namespace rlzoo::dmc
