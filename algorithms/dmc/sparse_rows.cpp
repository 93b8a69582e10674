#include "algorithms/dmc/sparse_rows.h"

#include <torch/torch.h>

namespace rlzoo::dmc {

__attribute__((target_clones("avx2", "default"))) void add_sparse_rows(const float* x, std::int64_t rows,
                                                                        std::int64_t k, const float* wt,
                                                                        std::int64_t n, float* out) {
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* in = x + r * k;
    float* o = out + r * n;
    for (std::int64_t j = 0; j < k; ++j) {
      const float s = in[j];
      if (s == 0.0f) continue;
      const float* w = wt + j * n;
      for (std::int64_t c = 0; c < n; ++c) o[c] += s * w[c];
    }
  }
}

namespace {

// gwt[j, :] += sum over the rows r with x[r, j] nonzero of x[r, j] * g[r, :]: w's gradient,
// transposed.
__attribute__((target_clones("avx2", "default"))) void add_sparse_outer(const float* x, std::int64_t rows,
                                                                         std::int64_t k, const float* g,
                                                                         std::int64_t n, float* gwt) {
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* in = x + r * k;
    const float* gr = g + r * n;
    for (std::int64_t j = 0; j < k; ++j) {
      const float s = in[j];
      if (s == 0.0f) continue;
      float* o = gwt + j * n;
      for (std::int64_t c = 0; c < n; ++c) o[c] += s * gr[c];
    }
  }
}

struct SparseInputLinear : torch::autograd::Function<SparseInputLinear> {
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& x, const torch::Tensor& w,
                               const torch::Tensor& b) {
    const std::int64_t rows = x.size(0), k = x.size(1), n = w.size(0);
    const auto wt = w.detach().t().contiguous();  // [k, n]
    auto y = b.defined() ? b.detach().expand({rows, n}).contiguous() : torch::zeros({rows, n});
    add_sparse_rows(x.data_ptr<float>(), rows, k, wt.data_ptr<float>(), n, y.data_ptr<float>());
    ctx->save_for_backward({x});
    ctx->saved_data["bias"] = b.defined();
    return y;
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    const auto x = ctx->get_saved_variables()[0];
    const auto g = grads[0].contiguous();
    const std::int64_t rows = x.size(0), k = x.size(1), n = g.size(1);
    auto gwt = torch::zeros({k, n});
    add_sparse_outer(x.data_ptr<float>(), rows, k, g.data_ptr<float>(), n, gwt.data_ptr<float>());
    const torch::Tensor gb = ctx->saved_data["bias"].toBool() ? g.sum(0) : torch::Tensor();
    return {torch::Tensor(), gwt.t().contiguous(), gb};
  }
};

}  // namespace

torch::Tensor sparse_input_linear(const torch::Tensor& x, const torch::Tensor& w, const torch::Tensor& b) {
  TORCH_CHECK(x.is_cpu() && x.scalar_type() == torch::kFloat32 && x.dim() == 2 && !x.requires_grad(),
              "sparse_input_linear: x must be a float32 CPU matrix without a gradient");
  TORCH_CHECK(w.is_cpu() && w.scalar_type() == torch::kFloat32 && w.dim() == 2 && w.size(1) == x.size(1),
              "sparse_input_linear: w must be [n, ", x.size(1), "] float32 on the CPU");
  TORCH_CHECK(!b.defined() || (b.dim() == 1 && b.size(0) == w.size(0)), "sparse_input_linear: b must be [n]");
  return SparseInputLinear::apply(x.contiguous(), w, b);
}

}  // namespace rlzoo::dmc
