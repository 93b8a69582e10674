#include "algorithms/dmc/douzero_net.h"

#include <torch/autograd.h>

#include "algorithms/dmc/douzero_inference.h"
#include "algorithms/dmc/lstm_sequence.h"
#include "algorithms/dmc/sparse_rows.h"

namespace rlzoo::dmc {

DouZeroNetImpl::DouZeroNetImpl(std::int64_t state_dim) : state_dim_(state_dim) {
  lstm_ = register_module("lstm", torch::nn::LSTM(torch::nn::LSTMOptions(162, kLstmHidden).batch_first(true)));
  const std::int64_t in = kLstmHidden + state_dim + kActionDim;
  dense1_ = register_module("dense1", torch::nn::Linear(in, kHidden));
  dense2_ = register_module("dense2", torch::nn::Linear(kHidden, kHidden));
  dense3_ = register_module("dense3", torch::nn::Linear(kHidden, kHidden));
  dense4_ = register_module("dense4", torch::nn::Linear(kHidden, kHidden));
  dense5_ = register_module("dense5", torch::nn::Linear(kHidden, kHidden));
  dense6_ = register_module("dense6", torch::nn::Linear(kHidden, 1));
}

torch::Tensor DouZeroNetImpl::history(const torch::Tensor& z) {
  auto out = std::get<0>(lstm_->forward(z));  // [N,5,128]
  return out.select(1, out.size(1) - 1);
}

torch::Tensor DouZeroNetImpl::head(torch::Tensor pre) {
  auto y = torch::relu(pre);
  y = torch::relu(dense2_->forward(y));
  y = torch::relu(dense3_->forward(y));
  y = torch::relu(dense4_->forward(y));
  y = torch::relu(dense5_->forward(y));
  return dense6_->forward(y).squeeze(-1);
}

torch::Tensor DouZeroNetImpl::forward(const torch::Tensor& z, const torch::Tensor& x) {
  return head(dense1_->forward(torch::cat({history(z), x}, 1)));
}

torch::Tensor DouZeroNetImpl::forward_sparse(const torch::Tensor& z, const torch::Tensor& x) {
  if (!z.is_cpu() || !x.is_cpu() || !dense1_->weight.is_cpu() || z.scalar_type() != torch::kFloat32 ||
      x.scalar_type() != torch::kFloat32 || z.requires_grad() || x.requires_grad())
    return forward(z, x);
  const auto w = weights();
  const std::int64_t n = z.size(0), steps = z.size(1);
  const auto gates = sparse_input_linear(z.reshape({n * steps, z.size(2)}), w.lstm_ih, w.lstm_b_ih + w.lstm_b_hh)
                         .view({n, steps, 4 * kLstmHidden});
  const auto h = lstm_last_hidden(gates, w.lstm_hh);
  const auto& w1 = w.dense_w[0];
  const auto inputs = sparse_input_linear(x, w1.narrow(1, kLstmHidden, state_dim_ + kActionDim), w.dense_b[0]);
  return head(torch::addmm(inputs, h, w1.narrow(1, 0, kLstmHidden).t()));
}

DouZeroNetImpl::Weights DouZeroNetImpl::weights() {
  Weights w;
  const auto lstm = lstm_->named_parameters();
  w.lstm_ih = lstm["weight_ih_l0"];
  w.lstm_hh = lstm["weight_hh_l0"];
  w.lstm_b_ih = lstm["bias_ih_l0"];
  w.lstm_b_hh = lstm["bias_hh_l0"];
  const std::array<torch::nn::Linear*, 6> dense{&dense1_, &dense2_, &dense3_, &dense4_, &dense5_, &dense6_};
  for (std::size_t i = 0; i < dense.size(); ++i) {
    w.dense_w[i] = (*dense[i])->weight;
    w.dense_b[i] = (*dense[i])->bias;
  }
  return w;
}

torch::Tensor DouZeroNetImpl::q_values(const torch::Tensor& z, const torch::Tensor& x, const torch::Tensor& actions,
                                       const torch::Tensor& decision_of) {
  const bool cpu_inference = !torch::GradMode::is_enabled() && dense1_->weight.is_cpu() &&
                             dense1_->weight.scalar_type() == torch::kFloat32 && z.is_cpu() && x.is_cpu() &&
                             actions.is_cpu() && decision_of.is_cpu() && z.scalar_type() == torch::kFloat32 &&
                             x.scalar_type() == torch::kFloat32 && actions.scalar_type() == torch::kFloat32 &&
                             decision_of.scalar_type() == torch::kInt64;
  if (!cpu_inference) return q_values_torch(z, x, actions, decision_of);
  TORCH_CHECK(z.dim() == 3 && z.size(1) == 5 && z.size(2) == 162, "q_values: z must be [D, 5, 162]");
  TORCH_CHECK(x.dim() == 2 && x.size(0) == z.size(0) && x.size(1) == state_dim_, "q_values: x must be [D, ",
              state_dim_, "]");
  TORCH_CHECK(actions.dim() == 2 && actions.size(1) == kActionDim && decision_of.dim() == 1 &&
                  decision_of.size(0) == actions.size(0),
              "q_values: actions must be [A, 54] and decision_of [A]");
  const auto zc = z.contiguous(), xc = x.contiguous(), ac = actions.contiguous(), of = decision_of.contiguous();
  const std::int64_t d = z.size(0), a = actions.size(0);
  const std::int64_t* decision = of.data_ptr<std::int64_t>();
  for (std::int64_t i = 0; i < a; ++i)
    TORCH_CHECK(decision[i] >= 0 && decision[i] < d, "q_values: decision_of[", i, "] = ", decision[i],
                " is not one of the ", d, " decisions");
  const Weights w = weights();
  std::shared_ptr<const SparseInputWeights> sparse;
  {
    std::lock_guard lock(sparse_mutex_);
    if (!sparse_ || !sparse_input_weights_current(*sparse_, w)) sparse_ = make_sparse_input_weights(w);
    sparse = sparse_;
  }
  auto q = torch::empty({a}, torch::kFloat32);
  factorised_q_values_cpu(w, *sparse, zc.data_ptr<float>(), xc.data_ptr<float>(), state_dim_, d, ac.data_ptr<float>(),
                          decision, a, q.data_ptr<float>());
  return q;
}

torch::Tensor DouZeroNetImpl::q_values_torch(const torch::Tensor& z, const torch::Tensor& x,
                                             const torch::Tensor& actions, const torch::Tensor& decision_of) {
  const auto& w = dense1_->weight;  // [512, 128 + state_dim + 54]
  const auto w_state = w.narrow(1, 0, kLstmHidden + state_dim_);
  const auto w_action = w.narrow(1, kLstmHidden + state_dim_, kActionDim);
  const auto per_decision = torch::addmm(dense1_->bias, torch::cat({history(z), x}, 1), w_state.t());  // [D,512]
  auto pre = per_decision.index_select(0, decision_of);                                              // [A,512]
  pre.addmm_(actions, w_action.t());
  return head(std::move(pre));
}

std::int64_t parameter_count(const torch::nn::Module& m) {
  std::int64_t n = 0;
  for (const auto& p : m.parameters()) n += p.numel();
  return n;
}

}  // namespace rlzoo::dmc
