#include "rl/nets/fused_mlp.h"

#include <torch/autograd.h>
#include <torch/nn/module.h>

#include <fmt/format.h>

#include <algorithm>

#include "core/torch/plain_tensor.h"
#include "core/common/error.h"
#include "rl/nets/fused_mlp_kernels.h"
#include "rl/nets/gemm.h"
#include "rl/nets/thin_gemm.h"

namespace rlzoo {

namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// The parameter's gradient, made (zeros) where it has none yet, to accumulate into.
float* gradient_of(const torch::Tensor& p) {
  if (!p.grad().defined()) const_cast<torch::Tensor&>(p).mutable_grad() = torch::zeros_like(p);
  return p.grad().data_ptr<float>();
}

// One layer: y [rows, out] = act(h [rows, in] W^T + b), no activation when `act` is null. Where
// it rounds alike (thin_gemm.h), y starts as the bias and the product adds to it.
void layer_forward(const float* h, std::int64_t rows, const torch::Tensor& w, const torch::Tensor& b,
                   const FusedActivation* act, float* y) {
  const std::int64_t in = w.size(1), out = w.size(0);
  const float* bias = b.data_ptr<float>();
  if (rows > 0 && bias_first_matches_blas(in)) {
    // The bias into every row, in doubling copies (a copy per row held ~1.8% of the samples of
    // PPO's CartPole training).
    std::copy(bias, bias + out, y);
    for (std::int64_t filled = 1; filled < rows;) {
      const std::int64_t n = std::min(filled, rows - filled);
      std::copy(y, y + n * out, y + filled * out);
      filled += n;
    }
    sgemm(Trans::No, Trans::Yes, rows, out, in, 1.0f, h, in, w.data_ptr<float>(), in, 1.0f, y, out);
    if (act) fused::activate(y, rows * out, *act);
    return;
  }
  sgemm(Trans::No, Trans::Yes, rows, out, in, 1.0f, h, in, w.data_ptr<float>(), in, 0.0f, y, out);
  fused::bias_activation(y, bias, rows, out, act);
}

// The chain's output on x [B, in] for params [W0, b0, W1, b1, ...]; with `saved`, x and every
// layer's output are kept there for the backward pass.
torch::Tensor run_forward(const torch::Tensor& x, torch::TensorList params, FusedActivation act, bool linear_output,
                          std::vector<torch::Tensor>* saved) {
  const std::int64_t layers = static_cast<std::int64_t>(params.size()) / 2, rows = x.size(0);
  if (saved) {
    saved->reserve(static_cast<std::size_t>(layers) + 1);
    saved->push_back(x);
  }
  torch::Tensor h = x;
  for (std::int64_t l = 0; l < layers; ++l) {
    auto y = torch::empty({rows, params[2 * l].size(0)});
    const bool activated = !(linear_output && l == layers - 1);
    layer_forward(h.data_ptr<float>(), rows, params[2 * l], params[2 * l + 1], activated ? &act : nullptr,
                  y.data_ptr<float>());
    if (saved) saved->push_back(y);
    h = y;
  }
  return h;
}

// One layer's parameters and (where wanted, else null) gradients as raw memory.
struct LayerView {
  const float* w;
  const float* b;
  float* grad_w;
  float* grad_b;
  std::int64_t in, out;
};

// The chain's backward pass over raw memory: `input` [rows, in] and outputs[l], layer l's
// output, as the forward pass left them; dz [rows, out] the gradient at the chain's output,
// clobbered. Accumulates into the gradients the views point to, writes the input's gradient
// into dx [rows, in] when not null. scratch: 2 x rows x the widest layer's outputs.
void backward_layers(const std::vector<LayerView>& layers, const float* input, const std::vector<const float*>& outputs,
                     std::int64_t rows, FusedActivation act, bool linear_output, float* dz, float* scratch,
                     std::int64_t widest, float* dx) {
  const std::int64_t n = static_cast<std::int64_t>(layers.size());
  for (std::int64_t l = n - 1; l >= 0; --l) {
    const LayerView& layer = layers[static_cast<std::size_t>(l)];
    if (!(linear_output && l == n - 1))
      fused::activation_backward(dz, outputs[static_cast<std::size_t>(l)], rows * layer.out, act);
    const float* h = l == 0 ? input : outputs[static_cast<std::size_t>(l - 1)];
    if (layer.grad_w)
      sgemm(Trans::Yes, Trans::No, layer.out, layer.in, rows, 1.0f, dz, layer.out, h, layer.in, 1.0f, layer.grad_w,
            layer.in);
    if (layer.grad_b) fused::add_column_sums(layer.grad_b, dz, rows, layer.out);
    if (l == 0 && !dx) break;
    // dz for layer l - 1: into the scratch half layer l + 1 did not write (dz may be there).
    float* dh = l == 0 ? dx : scratch + (l % 2) * rows * widest;
    sgemm(Trans::No, Trans::No, rows, layer.in, layer.out, 1.0f, dz, layer.out, layer.w, layer.in, 0.0f, dh, layer.in);
    dz = dh;
  }
}

// forward(x, [W0, b0, W1, b1, ...], activation, linear_output): the chain's output. The layer
// outputs are saved for the backward pass, the parameters too (their gradients are
// accumulated in place, so they are returned undefined).
struct FusedMlpFunction : public torch::autograd::Function<FusedMlpFunction> {
  static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& x, torch::TensorList params,
                               std::int64_t activation, bool linear_output) {
    std::vector<torch::Tensor> saved;
    auto y = run_forward(x, params, static_cast<FusedActivation>(activation), linear_output, &saved);
    ctx->save_for_backward(saved);
    ctx->saved_data["params"] = params.vec();
    ctx->saved_data["activation"] = activation;
    ctx->saved_data["linear_output"] = linear_output;
    return y;
  }

  static variable_list backward(AutogradContext* ctx, variable_list grad_outputs) {
    const auto saved = ctx->get_saved_variables();
    const auto params = ctx->saved_data["params"].toTensorVector();
    const auto act = static_cast<FusedActivation>(ctx->saved_data["activation"].toInt());
    const bool linear_output = ctx->saved_data["linear_output"].toBool();
    const std::int64_t layers = static_cast<std::int64_t>(params.size()) / 2;
    const torch::Tensor& x = saved[0];
    const std::int64_t rows = x.size(0);
    const bool input_grad = ctx->needs_input_grad(0);
    std::vector<LayerView> views;
    std::vector<const float*> outputs;
    std::int64_t widest = 0;
    for (std::int64_t l = 0; l < layers; ++l) {
      const auto& w = params[2 * l];
      const auto& b = params[2 * l + 1];
      views.push_back({w.data_ptr<float>(), b.data_ptr<float>(), w.requires_grad() ? gradient_of(w) : nullptr,
                       b.requires_grad() ? gradient_of(b) : nullptr, w.size(1), w.size(0)});
      outputs.push_back(saved[l + 1].data_ptr<float>());
      widest = std::max(widest, w.size(0));
    }
    torch::Tensor dz = grad_outputs[0].contiguous().clone();  // clobbered by the pass
    auto scratch = torch::empty({2 * rows * widest});
    torch::Tensor dx = input_grad ? torch::empty({rows, x.size(1)}) : torch::Tensor();
    backward_layers(views, x.data_ptr<float>(), outputs, rows, act, linear_output, dz.data_ptr<float>(),
                    scratch.data_ptr<float>(), widest, input_grad ? dx.data_ptr<float>() : nullptr);
    variable_list grads(params.size() + 3);
    if (input_grad) grads[0] = dx;
    return grads;
  }
};

}  // namespace

std::optional<FusedActivation> fused_mlp_activation(const std::string& name) {
  if (name == "tanh") return FusedActivation::Tanh;
  if (name == "relu") return FusedActivation::Relu;
  return std::nullopt;
}

FusedMlp::FusedMlp(std::vector<torch::nn::Linear> layers, const std::string& activation, bool linear_output)
    : layers_(std::move(layers)), linear_output_(linear_output) {
  RLZOO_CHECK(!layers_.empty(), "a fused MLP needs at least one layer");
  const auto act = fused_mlp_activation(activation);
  if (!act) throw UserError(fmt::format("the fused MLP path computes tanh and relu, not '{}'", activation));
  activation_ = *act;
  for (const auto& l : layers_)
    RLZOO_CHECK(l->options.bias(), "the fused MLP path needs layers with biases");
}

bool FusedMlp::applies_to(const torch::Tensor& x) const {
  return x.dim() == 2 && x.size(1) == in_features() && is_plain_cpu(x, torch::kFloat32) && plain_parameters();
}

torch::Tensor FusedMlp::forward(const torch::Tensor& x) const {
  std::vector<torch::Tensor> params;
  params.reserve(layers_.size() * 2);
  for (const auto& l : layers_) {
    params.push_back(l->weight);
    params.push_back(l->bias);
  }
  const bool track = torch::GradMode::is_enabled() &&
                     (x.requires_grad() || std::any_of(params.begin(), params.end(), [](const torch::Tensor& p) {
                        return p.requires_grad();
                      }));
  if (!track) return run_forward(x, params, activation_, linear_output_, nullptr);
  return FusedMlpFunction::apply(x, torch::TensorList(params), static_cast<std::int64_t>(activation_),
                                 linear_output_);
}

bool FusedMlp::forward_rows(const float* x, std::int64_t rows, float* y, std::vector<float>& scratch) const {
  std::int64_t widest = 0;
  for (const auto& l : layers_) {
    if (!is_plain_cpu(l->weight, torch::kFloat32) || !is_plain_cpu(l->bias, torch::kFloat32)) return false;
    widest = std::max(widest, l->options.out_features());
  }
  // Two halves: each hidden layer reads the one the layer before wrote.
  scratch.resize(static_cast<std::size_t>(2 * rows * widest));
  const float* h = x;
  const auto layers = layers_.size();
  for (std::size_t l = 0; l < layers; ++l) {
    const bool last = l + 1 == layers;
    float* out = last ? y : scratch.data() + (l % 2) * rows * widest;
    layer_forward(h, rows, layers_[l]->weight, layers_[l]->bias, last && linear_output_ ? nullptr : &activation_, out);
    h = out;
  }
  return true;
}

bool FusedMlp::plain_parameters() const {
  for (const auto& l : layers_)
    for (const auto* p : {&l->weight, &l->bias})
      if (!is_plain_cpu(*p, torch::kFloat32) || (p->grad().defined() && !is_plain_cpu(p->grad(), torch::kFloat32)))
        return false;
  return true;
}

const float* FusedMlp::forward_tape(const float* x, std::int64_t rows, Tape& tape) const {
  std::int64_t total = 0;
  for (const auto& l : layers_) total += rows * l->options.out_features();
  tape.input = x;
  tape.rows = rows;
  tape.outputs.resize(static_cast<std::size_t>(total));
  float* out = tape.outputs.data();
  const float* h = x;
  const auto layers = layers_.size();
  for (std::size_t l = 0; l < layers; ++l) {
    const bool last = l + 1 == layers;
    layer_forward(h, rows, layers_[l]->weight, layers_[l]->bias, last && linear_output_ ? nullptr : &activation_, out);
    h = out;
    out += rows * layers_[l]->options.out_features();
  }
  return h;
}

void FusedMlp::backward_tape(Tape& tape, float* dy, bool parameter_grads, float* dx) const {
  std::vector<LayerView> views;
  std::vector<const float*> outputs;
  views.reserve(layers_.size());
  outputs.reserve(layers_.size());
  std::int64_t widest = 0;
  const float* out = tape.outputs.data();
  for (const auto& l : layers_) {
    const std::int64_t n_out = l->options.out_features();
    views.push_back({l->weight.data_ptr<float>(), l->bias.data_ptr<float>(),
                     parameter_grads ? gradient_of(l->weight) : nullptr,
                     parameter_grads ? gradient_of(l->bias) : nullptr, l->options.in_features(), n_out});
    outputs.push_back(out);
    out += tape.rows * n_out;
    widest = std::max(widest, n_out);
  }
  tape.scratch.resize(static_cast<std::size_t>(2 * tape.rows * widest));
  backward_layers(views, tape.input, outputs, tape.rows, activation_, linear_output_, dy, tape.scratch.data(), widest,
                  dx);
}

std::int64_t FusedMlp::in_features() const { return layers_.front()->options.in_features(); }
std::int64_t FusedMlp::out_features() const { return layers_.back()->options.out_features(); }

void fused_tanh(const float* x, float* out, std::int64_t n) { fused::tanh(x, out, n); }

}  // namespace rlzoo
