#include "rl/nets/layers.h"

#include <fmt/format.h>

#include "core/common/error.h"
#include "core/common/strings.h"
#include "core/torch/device.h"

namespace rlzoo {

const std::vector<std::string>& activation_names() {
  static const std::vector<std::string> names{"tanh", "relu", "elu", "leaky_relu", "gelu", "silu"};
  return names;
}

torch::nn::AnyModule make_activation(const std::string& name) {
  if (name == "tanh") return torch::nn::AnyModule(torch::nn::Tanh());
  if (name == "relu") return torch::nn::AnyModule(torch::nn::ReLU());
  if (name == "elu") return torch::nn::AnyModule(torch::nn::ELU());
  if (name == "leaky_relu") return torch::nn::AnyModule(torch::nn::LeakyReLU());
  if (name == "gelu") return torch::nn::AnyModule(torch::nn::GELU());
  if (name == "silu") return torch::nn::AnyModule(torch::nn::SiLU());
  throw UserError(fmt::format("unknown activation '{}'{}; known: {}", name, did_you_mean(name, activation_names()),
                              join(activation_names())));
}

void orthogonal_init(torch::nn::Module& module, double gain) {
  torch::NoGradGuard no_grad;
  for (auto& m : module.modules(/*include_self=*/true)) {
    if (auto* lin = m->as<torch::nn::Linear>()) {
      torch::nn::init::orthogonal_(lin->weight, gain);
      if (lin->bias.defined()) lin->bias.zero_();
    } else if (auto* conv = m->as<torch::nn::Conv2d>()) {
      torch::nn::init::orthogonal_(conv->weight, gain);
      if (conv->bias.defined()) conv->bias.zero_();
    }
  }
}

MlpImpl::MlpImpl(std::int64_t in_features, const std::vector<std::int64_t>& hidden, const std::string& activation)
    : activation_(activation), out_features_(in_features) {
  for (auto width : hidden) {
    if (width < 1) throw UserError(fmt::format("hidden layer width must be >= 1, got {}", width));
    linears_.emplace_back(out_features_, width);
    layers_->push_back(linears_.back());
    layers_->push_back(make_activation(activation));
    out_features_ = width;
  }
  register_module("layers", layers_);
}

torch::Tensor MlpImpl::forward(torch::Tensor x) { return layers_->is_empty() ? x : layers_->forward(x); }

NatureCnnImpl::NatureCnnImpl(std::vector<std::int64_t> shape, bool channels_last, std::int64_t features)
    : channels_last_(channels_last), features_(features) {
  RLZOO_CHECK(shape.size() == 3);
  const std::int64_t c = channels_last ? shape[2] : shape[0];
  const std::int64_t h = channels_last ? shape[0] : shape[1];
  const std::int64_t w = channels_last ? shape[1] : shape[2];
  convs_ = torch::nn::Sequential(torch::nn::Conv2d(torch::nn::Conv2dOptions(c, 32, 8).stride(4)), torch::nn::ReLU(),
                                 torch::nn::Conv2d(torch::nn::Conv2dOptions(32, 64, 4).stride(2)), torch::nn::ReLU(),
                                 torch::nn::Conv2d(torch::nn::Conv2dOptions(64, 64, 3).stride(1)), torch::nn::ReLU(),
                                 torch::nn::Flatten());
  register_module("convs", convs_);
  std::int64_t flat = 0;
  {
    torch::NoGradGuard no_grad;
    flat = convs_->forward(torch::zeros({1, c, h, w})).size(1);
  }
  if (flat < 1) throw UserError(fmt::format("image {}x{} is too small for the Nature CNN", h, w));
  fc_ = register_module("fc", torch::nn::Linear(flat, features));
}

torch::Tensor NatureCnnImpl::forward(torch::Tensor images) {
  auto x = images.to(torch::kFloat32) / 255.0;
  if (channels_last_) x = x.permute({0, 3, 1, 2});
  return torch::relu(fc_->forward(convs_->forward(x)));
}

RecurrentEncoderImpl::RecurrentEncoderImpl(const std::string& cell, std::int64_t in_features, std::int64_t hidden,
                                           std::int64_t layers)
    : lstm_(cell == "lstm"), hidden_(hidden), layers_(layers) {
  if (cell != "lstm" && cell != "gru") throw UserError(fmt::format("unknown recurrent cell '{}'; known: lstm, gru", cell));
  if (lstm_)
    lstm_cell_ = register_module("lstm", torch::nn::LSTM(torch::nn::LSTMOptions(in_features, hidden).num_layers(layers)));
  else
    gru_cell_ = register_module("gru", torch::nn::GRU(torch::nn::GRUOptions(in_features, hidden).num_layers(layers)));
  // Orthogonal weights, zero biases (the PPO-LSTM recipe).
  torch::NoGradGuard no_grad;
  for (auto& p : named_parameters()) {
    if (p.key().find("weight") != std::string::npos)
      torch::nn::init::orthogonal_(p.value(), 1.0);
    else
      p.value().zero_();
  }
}

torch::Tensor RecurrentEncoderImpl::initial_state(std::int64_t batch) const {
  return torch::zeros({lstm_ ? 2 : 1, layers_, batch, hidden_}, module_device(*this));
}

std::pair<torch::Tensor, torch::Tensor> RecurrentEncoderImpl::forward(torch::Tensor x, torch::Tensor state,
                                                                      torch::Tensor episode_start) {
  // The state is zeroed where a new episode starts, so the sequence runs in chunks that begin
  // at the steps where some sequence starts an episode: one RNN call per chunk (a step-by-step
  // loop costs several times more in the update, where T is the rollout length).
  const std::int64_t steps = x.size(0);
  RLZOO_CHECK(steps >= 1 && episode_start.size(0) == steps, "RecurrentEncoder: episode_start must be [T, B], T >= 1");
  const auto any_start = episode_start.to(torch::kBool).any(1).cpu().contiguous();  // read on the host
  const bool* starts_at = any_start.data_ptr<bool>();
  std::vector<torch::Tensor> outputs;
  for (std::int64_t t = 0; t < steps;) {
    if (starts_at[t]) state = state * (1.0 - episode_start[t].to(torch::kFloat32)).view({1, 1, -1, 1});
    std::int64_t end = t + 1;
    while (end < steps && !starts_at[end]) ++end;
    const auto chunk = x.slice(0, t, end);
    if (lstm_) {
      auto [out, hc] = lstm_cell_->forward(chunk, std::make_tuple(state[0], state[1]));
      outputs.push_back(out);
      state = torch::stack({std::get<0>(hc), std::get<1>(hc)});
    } else {
      auto [out, h] = gru_cell_->forward(chunk, state[0]);
      outputs.push_back(out);
      state = h.unsqueeze(0);
    }
    t = end;
  }
  return {outputs.size() == 1 ? outputs[0] : torch::cat(outputs), state};
}

}  // namespace rlzoo
