// DouZero's Q-network (douzero/dmc/models.py), one per seat, with DouZero's parameter names so
// its checkpoints load as they are:
//
//   z [N,5,162] -> LSTM(162 -> 128, batch-first, zero initial state) -> output at the last step h
//   f = [h, x, a]   (x: the seat's state features, 319 or 430; a: the 54-value action encoding)
//   q = dense6(relu(dense5(... relu(dense1(f)) ...)))   five 512-wide ReLU layers, then 512 -> 1
//
// 1,457,665 parameters for the landlord, 1,514,497 for a peasant.
//
// forward() is DouZero's evaluation: the LSTM and the whole first layer run once per (state,
// action) row. q_values() gives the same numbers for a batch of decisions much faster: dense1
// is linear, so dense1(f) = W_hx [h, x] + W_a a + b; the LSTM and W_hx [h, x] run once per
// decision, and only W_a a (a 54 x 512 product) and the 512-wide layers run per action. On the
// CPU without autograd, q_values() runs in BLAS calls and plain loops (douzero_inference.h).
#pragma once

#include <array>
#include <memory>
#include <mutex>

#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/rnn.h>

#include "core/torch/module_parameters.h"

namespace rlzoo::dmc {

struct SparseInputWeights;

inline constexpr std::int64_t kActionDim = 54;
inline constexpr std::int64_t kLstmHidden = 128;
inline constexpr std::int64_t kHidden = 512;

class DouZeroNetImpl : public torch::nn::Module {
 public:
  // state_dim: 319 (landlord) or 430 (peasants): the features before the action.
  explicit DouZeroNetImpl(std::int64_t state_dim);

  std::int64_t state_dim() const { return state_dim_; }

  // DouZero's forward: z [N,5,162], x [N, state_dim + 54] (state then action) -> q [N].
  torch::Tensor forward(const torch::Tensor& z, const torch::Tensor& x);
  // forward() for DouZero's sparse 0/1 features, what the learner trains with: on the CPU the
  // LSTM's input product and dense1's state and action part are sums of weight rows over the
  // nonzero inputs (sparse_rows.h), gradients included, and the LSTM's steps run as one
  // operation (lstm_sequence.h); the same numbers to float rounding. Elsewhere: forward().
  torch::Tensor forward_sparse(const torch::Tensor& z, const torch::Tensor& x);
  // Factorised: D decisions (z [D,5,162], x [D, state_dim]) and A candidate actions
  // (actions [A,54]) of which row i belongs to decision decision_of[i] (int64 [A]) -> q [A].
  torch::Tensor q_values(const torch::Tensor& z, const torch::Tensor& x, const torch::Tensor& actions,
                         const torch::Tensor& decision_of);
  // The LSTM's last output, h [N,128].
  torch::Tensor history(const torch::Tensor& z);

  // The parameters, by role (DouZero's lstm.* and dense1..6.*).
  struct Weights {
    torch::Tensor lstm_ih, lstm_hh, lstm_b_ih, lstm_b_hh;  // [512,162], [512,128], [512], [512]
    std::array<torch::Tensor, 6> dense_w, dense_b;          // dense1..dense6
  };
  Weights weights();

 private:
  torch::Tensor head(torch::Tensor first_layer_pre_activation);
  torch::Tensor q_values_torch(const torch::Tensor& z, const torch::Tensor& x, const torch::Tensor& actions,
                               const torch::Tensor& decision_of);

  std::int64_t state_dim_;
  torch::nn::LSTM lstm_{nullptr};
  torch::nn::Linear dense1_{nullptr}, dense2_{nullptr}, dense3_{nullptr}, dense4_{nullptr}, dense5_{nullptr},
      dense6_{nullptr};
  // The CPU path's transposed first-layer weights, remade when the weights change.
  std::mutex sparse_mutex_;
  std::shared_ptr<const SparseInputWeights> sparse_;
};
TORCH_MODULE(DouZeroNet);

std::int64_t parameter_count(const torch::nn::Module& m);

}  // namespace rlzoo::dmc
