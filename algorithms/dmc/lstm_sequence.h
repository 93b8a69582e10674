// DouZero's LSTM (one layer, zero initial state, PyTorch's gate order i, f, g, o) in plain
// loops and BLAS calls: the cell's element part, and the whole sequence as one autograd
// operation for the learner. Through torch::nn::LSTM the learner's step spent ~40% of its
// time in the LSTM: a LibTorch operation, with its own pass over memory, per gate and step,
// forward and backward. Here a step is one product and two fused passes each way.
#pragma once

#include <cstdint>

#include "core/torch/tensor.h"

namespace rlzoo::dmc {

// The steps of an LSTM with a zero initial state on input gates already computed, t-major:
// gates [steps][rows][4 hidden] holds x_t W_ih^T + b_ih + b_hh and is overwritten with each
// step's activations (sigmoid of i, f, o; tanh of g); c, tanh_c and h [steps][rows][hidden]
// receive each step's cell state, its tanh and the output. w_hh [4 hidden, hidden], row-major.
void lstm_steps(float* gates, std::int64_t steps, std::int64_t rows, std::int64_t hidden, const float* w_hh, float* c,
                float* tanh_c, float* h);

// The last step's output h [N, H] of an LSTM whose input part is already computed:
// input_gates [N, T, 4H] = x_t W_ih^T + b_ih + b_hh, w_hh [4H, H]; float32 on the CPU. The
// same numbers as torch::nn::LSTM to float rounding; gradients flow to input_gates and w_hh.
torch::Tensor lstm_last_hidden(const torch::Tensor& input_gates, const torch::Tensor& w_hh);

}  // namespace rlzoo::dmc
