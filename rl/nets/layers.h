// Basic network blocks: MLP, Nature CNN, recurrent encoder, initialisers.
#pragma once

#include <torch/nn/module.h>
#include <torch/nn/modules/container/any.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/rnn.h>

#include <string>
#include <vector>

namespace rlzoo {

// "tanh", "relu", "elu", "leaky_relu", "gelu", "silu" as a module; a UserError lists them otherwise.
torch::nn::AnyModule make_activation(const std::string& name);
const std::vector<std::string>& activation_names();

// Orthogonal weights with `gain` and zero biases for every Linear and Conv2d under `module`
// (the PPO initialisation: sqrt(2) for hidden layers, 0.01 for the policy head, 1 for values).
void orthogonal_init(torch::nn::Module& module, double gain);

// Linear layers of the given widths with an activation after each (no output layer).
class MlpImpl : public torch::nn::Module {
 public:
  MlpImpl(std::int64_t in_features, const std::vector<std::int64_t>& hidden, const std::string& activation);
  torch::Tensor forward(torch::Tensor x);
  std::int64_t out_features() const { return out_features_; }
  // The Linear layers in order and the activation after each (the fused path's inputs).
  const std::vector<torch::nn::Linear>& linears() const { return linears_; }
  const std::string& activation() const { return activation_; }

 private:
  torch::nn::Sequential layers_;
  std::vector<torch::nn::Linear> linears_;
  std::string activation_;
  std::int64_t out_features_;
};
TORCH_MODULE(Mlp);

// The DQN "Nature" CNN (Mnih et al. 2015): 32x8x8/4, 64x4x4/2, 64x3x3/1, then a linear layer
// of `features` units, ReLU throughout. Takes uint8 images (HWC or CHW, as declared by
// channels_last) and scales them by 1/255 inside.
class NatureCnnImpl : public torch::nn::Module {
 public:
  NatureCnnImpl(std::vector<std::int64_t> image_shape, bool channels_last, std::int64_t features = 512);
  torch::Tensor forward(torch::Tensor images);
  std::int64_t out_features() const { return features_; }

 private:
  bool channels_last_;
  std::int64_t features_;
  torch::nn::Sequential convs_{nullptr};
  torch::nn::Linear fc_{nullptr};
};
TORCH_MODULE(NatureCnn);

// An LSTM or GRU over a sequence of feature vectors, with its state reset at episode starts.
// forward(x [T, B, F], state, episode_start [T, B]) -> (outputs [T, B, H], final state).
// The state is a [2, layers, B, H] tensor for an LSTM (h and c) and [1, layers, B, H] for a GRU.
class RecurrentEncoderImpl : public torch::nn::Module {
 public:
  RecurrentEncoderImpl(const std::string& cell, std::int64_t in_features, std::int64_t hidden, std::int64_t layers = 1);
  std::pair<torch::Tensor, torch::Tensor> forward(torch::Tensor x, torch::Tensor state, torch::Tensor episode_start);
  torch::Tensor initial_state(std::int64_t batch) const;
  std::int64_t out_features() const { return hidden_; }

 private:
  bool lstm_;
  std::int64_t hidden_, layers_;
  torch::nn::LSTM lstm_cell_{nullptr};
  torch::nn::GRU gru_cell_{nullptr};
};
TORCH_MODULE(RecurrentEncoder);

}  // namespace rlzoo
