#include "algorithms/dmc/lstm_sequence.h"

#include <torch/torch.h>

#include <algorithm>
#include <cstring>

#include "rl/nets/fused_mlp_kernels.h"
#include "rl/nets/gemm.h"

namespace rlzoo::dmc {

namespace {

// One step's element part for `rows` rows of `hidden` units: gates [rows, 4 hidden] from
// pre-activations to activations; c [rows, hidden] from the previous cell state (ignored when
// `first`: zero) to c = f c + i g; tanh_c = tanh(c) and h = o tanh(c).
__attribute__((target_clones("avx2", "default"))) void lstm_cell_block(float* gates, std::int64_t rows,
                                                                        std::int64_t hidden, bool first, float* c,
                                                                        float* tanh_c, float* h) {
  const std::int64_t width = 4 * hidden;
  // sigmoid(v) = 0.5 tanh(v / 2) + 0.5 on the i, f and o blocks, in one vectorised tanh pass with g's.
  for (std::int64_t r = 0; r < rows; ++r) {
    float* row = gates + r * width;
    for (std::int64_t k = 0; k < 2 * hidden; ++k) row[k] *= 0.5f;
    for (std::int64_t k = 3 * hidden; k < width; ++k) row[k] *= 0.5f;
  }
  fused::tanh(gates, gates, rows * width);
  for (std::int64_t r = 0; r < rows; ++r) {
    float* row = gates + r * width;
    float* cr = c + r * hidden;
    for (std::int64_t k = 0; k < 2 * hidden; ++k) row[k] = 0.5f * row[k] + 0.5f;
    for (std::int64_t k = 3 * hidden; k < width; ++k) row[k] = 0.5f * row[k] + 0.5f;
    for (std::int64_t k = 0; k < hidden; ++k) {
      const float ig = row[k] * row[2 * hidden + k];
      cr[k] = first ? ig : row[hidden + k] * cr[k] + ig;
    }
  }
  fused::tanh(c, tanh_c, rows * hidden);
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* o = gates + r * width + 3 * hidden;
    for (std::int64_t k = 0; k < hidden; ++k) h[r * hidden + k] = o[k] * tanh_c[r * hidden + k];
  }
}

// lstm_cell_block over blocks of rows small enough that a block's five passes (the gates' two
// tanh passes among them) stay in the L1 and L2 caches: over a learner's 3,200 rows at once
// each pass went out to L3 (6.5 MB of gates), and the step's element part took 1.5x as long.
void lstm_cell(float* gates, std::int64_t rows, std::int64_t hidden, bool first, float* c, float* tanh_c, float* h) {
  constexpr std::int64_t kBlockRows = 16;  // with 128 hidden units: 32 KB of gates
  for (std::int64_t r = 0; r < rows; r += kBlockRows) {
    const std::int64_t block = std::min(kBlockRows, rows - r);
    lstm_cell_block(gates + r * 4 * hidden, block, hidden, first, c + r * hidden, tanh_c + r * hidden, h + r * hidden);
  }
}

// One step back through the cell: from dh and dc (the gradients reaching h and c of this step)
// to dgates (the pre-activations', row r at dgates + r * dgates_stride); dc becomes the gradient
// reaching the previous step's c.
__attribute__((target_clones("avx2", "default"))) void lstm_cell_backward(const float* gates, const float* c_prev,
                                                                           const float* tanh_c, const float* dh,
                                                                           float* dc, float* dgates,
                                                                           std::int64_t dgates_stride,
                                                                           std::int64_t rows, std::int64_t hidden) {
  const std::int64_t width = 4 * hidden;
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* a = gates + r * width;
    float* d = dgates + r * dgates_stride;
    const std::int64_t o = r * hidden;
    for (std::int64_t k = 0; k < hidden; ++k) {
      const float i = a[k], f = a[hidden + k], g = a[2 * hidden + k], out = a[3 * hidden + k], tc = tanh_c[o + k];
      const float dc_k = dc[o + k] + dh[o + k] * out * (1.0f - tc * tc);
      const float cp = c_prev != nullptr ? c_prev[o + k] : 0.0f;
      d[k] = dc_k * g * i * (1.0f - i);
      d[hidden + k] = dc_k * cp * f * (1.0f - f);
      d[2 * hidden + k] = dc_k * i * (1.0f - g * g);
      d[3 * hidden + k] = dh[o + k] * tc * out * (1.0f - out);
      dc[o + k] = dc_k * f;
    }
  }
}

struct LstmSequence : torch::autograd::Function<LstmSequence> {
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& input_gates,
                               const torch::Tensor& w_hh) {
    const auto x = input_gates.detach().contiguous();
    const auto w = w_hh.detach().contiguous();
    const std::int64_t n = x.size(0), steps = x.size(1), width = x.size(2), hidden = width / 4;
    auto acts = torch::empty({steps, n, width}), cs = torch::empty({steps, n, hidden});
    auto tanh_cs = torch::empty({steps, n, hidden}), hs = torch::empty({steps, n, hidden});
    const float* xp = x.data_ptr<float>();
    float* a = acts.data_ptr<float>();
    for (std::int64_t t = 0; t < steps; ++t)  // to t-major
      for (std::int64_t r = 0; r < n; ++r)
        std::memcpy(a + (t * n + r) * width, xp + (r * steps + t) * width, static_cast<std::size_t>(width) * sizeof(float));
    lstm_steps(a, steps, n, hidden, w.data_ptr<float>(), cs.data_ptr<float>(), tanh_cs.data_ptr<float>(),
               hs.data_ptr<float>());
    ctx->save_for_backward({acts, cs, tanh_cs, hs, w});
    return hs[steps - 1].clone();
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    const auto &acts = saved[0], &cs = saved[1], &tanh_cs = saved[2], &hs = saved[3], &w = saved[4];
    const std::int64_t steps = acts.size(0), n = acts.size(1), width = acts.size(2), hidden = width / 4;
    auto dh = grads[0].contiguous().clone();
    auto dc = torch::zeros({n, hidden});
    auto dx = torch::empty({n, steps, width}), dw = torch::zeros({width, hidden});
    // Step t's gate gradients are written where dx holds them (row r at dx[r][t]) and the
    // products read them there, with dx's row stride: no copy of them per step.
    const std::int64_t stride = steps * width;
    for (std::int64_t t = steps - 1; t >= 0; --t) {
      float* dg = dx.data_ptr<float>() + t * width;
      lstm_cell_backward(acts[t].data_ptr<float>(), t > 0 ? cs[t - 1].data_ptr<float>() : nullptr,
                         tanh_cs[t].data_ptr<float>(), dh.data_ptr<float>(), dc.data_ptr<float>(), dg, stride, n,
                         hidden);
      if (t == 0) break;
      sgemm(Trans::Yes, Trans::No, width, hidden, n, 1.0f, dg, stride, hs[t - 1].data_ptr<float>(), hidden, 1.0f,
            dw.data_ptr<float>(), hidden);
      sgemm(Trans::No, Trans::No, n, hidden, width, 1.0f, dg, stride, w.data_ptr<float>(), hidden, 0.0f,
            dh.data_ptr<float>(), hidden);
    }
    return {dx, dw};
  }
};

}  // namespace

void lstm_steps(float* gates, std::int64_t steps, std::int64_t rows, std::int64_t hidden, const float* w_hh, float* c,
                float* tanh_c, float* h) {
  const std::int64_t width = 4 * hidden, state = rows * hidden;
  for (std::int64_t t = 0; t < steps; ++t) {
    float* g = gates + t * rows * width;
    if (t > 0) {  // the first step's state is zero
      sgemm(Trans::No, Trans::Yes, rows, width, hidden, 1.0f, h + (t - 1) * state, hidden, w_hh, hidden, 1.0f, g, width);
      std::memcpy(c + t * state, c + (t - 1) * state, static_cast<std::size_t>(state) * sizeof(float));
    }
    lstm_cell(g, rows, hidden, t == 0, c + t * state, tanh_c + t * state, h + t * state);
  }
}

torch::Tensor lstm_last_hidden(const torch::Tensor& input_gates, const torch::Tensor& w_hh) {
  TORCH_CHECK(input_gates.is_cpu() && input_gates.scalar_type() == torch::kFloat32 && input_gates.dim() == 3 &&
                  input_gates.size(2) % 4 == 0,
              "lstm_last_hidden: input_gates must be [N, T, 4H] float32 on the CPU");
  TORCH_CHECK(w_hh.is_cpu() && w_hh.scalar_type() == torch::kFloat32 && w_hh.dim() == 2 &&
                  w_hh.size(0) == input_gates.size(2) && w_hh.size(1) * 4 == w_hh.size(0),
              "lstm_last_hidden: w_hh must be [4H, H] float32 on the CPU");
  TORCH_CHECK(input_gates.size(1) > 0, "lstm_last_hidden: an empty sequence");
  return LstmSequence::apply(input_gates, w_hh);
}

}  // namespace rlzoo::dmc
