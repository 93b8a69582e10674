// A small MLP's forward and backward as one autograd node: Linear layers with tanh or ReLU
// between them, computed with direct BLAS products (rl/nets/gemm.h) and one pass per layer for
// the bias and the activation, instead of the dozen LibTorch operations and autograd nodes per
// layer that the modules cost. On the networks RL trains on vector observations (two layers
// of 64 or 256 units, batches of 64-256) those operations' dispatch and allocations, not the
// arithmetic, set the pace of an update (docs/performance.md, `rlzoo bench learner`).
//
// It computes what the modules compute, to float rounding (its tanh is its own, accurate to a
// few ulp; sums run in another order): tests/nets/fused_mlp_test.cpp checks outputs and every
// gradient against the LibTorch modules. It reads the layers' parameters at every call (a
// checkpoint load or a device move replaces them) and keeps no state between calls, so actors
// may call it from several threads.
//
// Gradients: the parameters' .grad() are accumulated in place during the backward pass (as
// autograd's accumulation would, allocating zeros where undefined), and the input's gradient is
// returned when the input requires one.
#pragma once

#include <torch/nn/modules/linear.h>

#include <optional>
#include <string>
#include <vector>

#include "core/torch/tensor.h"
#include "rl/nets/fused_mlp_kernels.h"

namespace rlzoo {

class FusedMlp {
 public:
  // `layers` in order, `activation` after each (also the last unless `linear_output`). A
  // UserError when the activation is not one the path computes (fused_mlp_activation()).
  FusedMlp(std::vector<torch::nn::Linear> layers, const std::string& activation, bool linear_output);

  // Whether forward() may be called with `x`: x and every parameter are contiguous float32 CPU
  // tensors, x is [B, in]. Callers take the modules' own path otherwise.
  bool applies_to(const torch::Tensor& x) const;

  torch::Tensor forward(const torch::Tensor& x) const;  // [B, in] -> [B, out]

  // forward() without gradients on raw rows, allocating nothing once `scratch` has grown: x
  // [rows, in] to y [rows, out], float32, the same values as forward(). For acting on an
  // actor's few rows, where a tensor per layer costs more than the layer. False (nothing
  // written) when a parameter is not a contiguous float32 CPU tensor.
  bool forward_rows(const float* x, std::int64_t rows, float* y, std::vector<float>& scratch) const;

  // A forward pass's layer outputs, kept for backward_tape(); its memory is reused from call
  // to call.
  struct Tape {
    const float* input = nullptr;
    std::int64_t rows = 0;
    std::vector<float> outputs, scratch;
  };
  // Whether every parameter (and gradient, where defined) is a contiguous float32 CPU tensor,
  // as forward_tape() and backward_tape() need.
  bool plain_parameters() const;
  // forward_rows() that keeps every layer's output in `tape` for backward_tape(): x [rows, in]
  // (read again by backward_tape(): keep it until then) to the output [rows, out], which the
  // returned pointer holds until the tape's next forward. Gradient mode is not consulted.
  const float* forward_tape(const float* x, std::int64_t rows, Tape& tape) const;
  // The backward pass of the forward_tape() that filled `tape`: dy [rows, out] the gradient at
  // the output (clobbered). Accumulates into the parameters' .grad() when `parameter_grads`
  // (allocating zeros where undefined), as FusedMlp::forward's node does; writes the input's
  // gradient into dx [rows, in] when not null.
  void backward_tape(Tape& tape, float* dy, bool parameter_grads, float* dx) const;

  std::int64_t in_features() const;
  std::int64_t out_features() const;

 private:
  std::vector<torch::nn::Linear> layers_;
  FusedActivation activation_;
  bool linear_output_;
};

// The fused activation for a policy's `activation` name, or nothing when the path has none.
std::optional<FusedActivation> fused_mlp_activation(const std::string& name);

// out[i] = tanh(x[i]) with the fused path's own vectorised tanh (maximum error a few ulp).
void fused_tanh(const float* x, float* out, std::int64_t n);

}  // namespace rlzoo
