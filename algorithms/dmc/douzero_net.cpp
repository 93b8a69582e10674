#include "algorithms/dmc/douzero_net.h"

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

torch::Tensor DouZeroNetImpl::q_values(const torch::Tensor& z, const torch::Tensor& x, const torch::Tensor& actions,
                                       const torch::Tensor& decision_of) {
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
