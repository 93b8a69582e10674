#include "algorithms/dmc/douzero_inference.h"

#include <torch/torch.h>

#include <algorithm>
#include <cstring>

#include "algorithms/dmc/douzero_net.h"
#include "algorithms/dmc/lstm_sequence.h"
#include "algorithms/dmc/sparse_rows.h"
#include "rl/nets/fused_mlp_kernels.h"
#include "rl/nets/gemm.h"

namespace rlzoo::dmc {

namespace {

constexpr std::int64_t kSteps = 5, kStepDim = 162, kGates = 4 * kLstmHidden;  // 512: i, f, g, o
static_assert(kGates == kHidden, "the gates and the hidden layers share the row width");

const float* floats(const torch::Tensor& t) {
  TORCH_CHECK(t.is_cpu() && t.scalar_type() == torch::kFloat32 && t.is_contiguous(),
              "DouZeroNet's CPU inference needs contiguous float32 parameters on the CPU");
  return t.data_ptr<float>();
}

void fill_rows(float* out, std::int64_t rows, const float* row) {
  for (std::int64_t r = 0; r < rows; ++r) std::memcpy(out + r * kHidden, row, kHidden * sizeof(float));
}

struct Scratch {
  std::vector<float> bias, steps, c, h, tanh_c, first, y0, y1;
  static float* sized(std::vector<float>& v, std::int64_t n) {
    if (static_cast<std::int64_t>(v.size()) < n) v.resize(static_cast<std::size_t>(n));
    return v.data();
  }
};

}  // namespace

std::shared_ptr<const SparseInputWeights> make_sparse_input_weights(const DouZeroNetImpl::Weights& w) {
  torch::NoGradGuard no_grad;
  auto s = std::make_shared<SparseInputWeights>();
  const auto transpose = [](const torch::Tensor& t) {
    const auto c = t.t().contiguous();
    return std::vector<float>(c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
  };
  floats(w.lstm_ih);
  floats(w.dense_w[0]);
  s->lstm_ih = transpose(w.lstm_ih);                                      // [162][512]
  s->dense1 = transpose(w.dense_w[0].narrow(1, kLstmHidden, w.dense_w[0].size(1) - kLstmHidden));  // [sd + 54][512]
  if (w.lstm_ih.is_inference() || w.dense_w[0].is_inference()) return s;  // never current
  s->lstm_ih_data = w.lstm_ih.data_ptr();
  s->lstm_ih_version = w.lstm_ih._version();
  s->dense1_data = w.dense_w[0].data_ptr();
  s->dense1_version = w.dense_w[0]._version();
  return s;
}

bool sparse_input_weights_current(const SparseInputWeights& s, const DouZeroNetImpl::Weights& w) {
  // Tensors made under InferenceMode keep no version: such weights are transposed on every call.
  if (w.lstm_ih.is_inference() || w.dense_w[0].is_inference()) return false;
  return s.lstm_ih_data == w.lstm_ih.data_ptr() && s.lstm_ih_version == w.lstm_ih._version() &&
         s.dense1_data == w.dense_w[0].data_ptr() && s.dense1_version == w.dense_w[0]._version();
}

void factorised_q_values_cpu(const DouZeroNetImpl::Weights& w, const SparseInputWeights& sparse, const float* z,
                             const float* x, std::int64_t sd, std::int64_t d, const float* actions,
                             const std::int64_t* decision_of, std::int64_t a, float* q) {
  if (a == 0) return;
  const std::int64_t dense1_stride = kLstmHidden + sd + kActionDim;
  thread_local Scratch s;

  // The LSTM, steps t-major: row t * d + i of `steps` is decision i's step t.
  float* steps = Scratch::sized(s.steps, kSteps * d * kGates);
  float* bias = Scratch::sized(s.bias, kGates);
  const float *b_ih = floats(w.lstm_b_ih), *b_hh = floats(w.lstm_b_hh);
  for (std::int64_t k = 0; k < kGates; ++k) bias[k] = b_ih[k] + b_hh[k];
  fill_rows(steps, kSteps * d, bias);
  for (std::int64_t t = 0; t < kSteps; ++t)
    for (std::int64_t i = 0; i < d; ++i)
      add_sparse_rows(z + (i * kSteps + t) * kStepDim, 1, kStepDim, sparse.lstm_ih.data(), kGates,
                      steps + (t * d + i) * kGates);
  float* c = Scratch::sized(s.c, kSteps * d * kLstmHidden);
  float* tanh_c = Scratch::sized(s.tanh_c, kSteps * d * kLstmHidden);
  float* hs = Scratch::sized(s.h, kSteps * d * kLstmHidden);
  lstm_steps(steps, kSteps, d, kLstmHidden, floats(w.lstm_hh), c, tanh_c, hs);
  const float* h = hs + (kSteps - 1) * d * kLstmHidden;  // the last step's output

  // dense1 per decision: bias + state part (sparse) + W_h h.
  float* first = Scratch::sized(s.first, d * kHidden);
  fill_rows(first, d, floats(w.dense_b[0]));
  add_sparse_rows(x, d, sd, sparse.dense1.data(), kHidden, first);
  sgemm(Trans::No, Trans::Yes, d, kHidden, kLstmHidden, 1.0f, h, kLstmHidden, floats(w.dense_w[0]), dense1_stride, 1.0f,
        first, kHidden);

  // Per candidate: its decision's row plus the action part, then ReLU and the 512-wide layers.
  float* y = Scratch::sized(s.y0, a * kHidden);
  float* next = Scratch::sized(s.y1, a * kHidden);
  for (std::int64_t i = 0; i < a; ++i)
    std::memcpy(y + i * kHidden, first + decision_of[i] * kHidden, kHidden * sizeof(float));
  add_sparse_rows(actions, a, kActionDim, sparse.dense1.data() + sd * kHidden, kHidden, y);
  constexpr FusedActivation relu = FusedActivation::Relu;
  fused::activate(y, a * kHidden, relu);
  for (std::size_t l = 1; l <= 4; ++l) {
    sgemm(Trans::No, Trans::Yes, a, kHidden, kHidden, 1.0f, y, kHidden, floats(w.dense_w[l]), kHidden, 0.0f, next,
          kHidden);
    fused::bias_activation(next, floats(w.dense_b[l]), a, kHidden, &relu);
    std::swap(y, next);
  }
  sgemm(Trans::No, Trans::Yes, a, 1, kHidden, 1.0f, y, kHidden, floats(w.dense_w[5]), kHidden, 0.0f, q, 1);
  const float b6 = *floats(w.dense_b[5]);
  for (std::int64_t i = 0; i < a; ++i) q[i] += b6;
}

double factorised_q_values_flops(std::int64_t d, std::int64_t a, std::int64_t nonzero_inputs) {
  const double per_decision = (kSteps - 1) * 2.0 * kGates * kLstmHidden  // recurrent products after the first step
                              + 2.0 * kHidden * kLstmHidden;               // dense1 on the LSTM's output
  const double per_candidate = 4 * 2.0 * kHidden * kHidden + 2.0 * kHidden;  // dense2..5, dense6
  return static_cast<double>(d) * per_decision + static_cast<double>(a) * per_candidate +
         2.0 * kHidden * static_cast<double>(nonzero_inputs);
}

}  // namespace rlzoo::dmc
