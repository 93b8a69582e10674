// torch::Tensor and torch::Device without all of LibTorch, for headers that only pass tensors
// along (the agent API, networks' signatures, buffers, parameter snapshots, gradient reducers,
// exported tensors). <ATen/core/Tensor.h> parses
// in about 1.7 s where <torch/torch.h> takes about 11.6 s (g++ -fsyntax-only, this machine),
// and a user's program that includes <rlzoo/rlzoo.h> pays it in every file. A source that
// computes with tensors includes <torch/torch.h> itself (the project's LibTorch targets have it
// from their precompiled header).
//
// torch::nn::Module and torch::optim::Optimizer are declared, not defined: such headers take
// modules and optimisers by reference.
#pragma once

#include <ATen/core/Tensor.h>

namespace torch {
// As <torch/types.h> does, so that torch::Tensor, torch::Device, torch::ScalarType and the
// dtype constants name the same entities with either header, or both.
using namespace at;  // NOLINT(google-build-using-namespace)
namespace nn {
class Module;
}  // namespace nn
namespace optim {
class Optimizer;
}  // namespace optim
}  // namespace torch
