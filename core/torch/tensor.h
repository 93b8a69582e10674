// torch::Tensor without all of LibTorch, for headers that only pass tensors along (the agent
// API, parameter snapshots, gradient reducers, exported tensors). <ATen/core/Tensor.h> parses
// in about 1.7 s where <torch/torch.h> takes about 11.6 s (g++ -fsyntax-only, this machine),
// and a user's program that includes <rlzoo/rlzoo.h> pays it in every file. A source that
// computes with tensors includes <torch/torch.h> itself (the project's LibTorch targets have it
// from their precompiled header).
//
// torch::nn::Module is declared, not defined: such headers take modules by reference.
#pragma once

#include <ATen/core/Tensor.h>

namespace torch {
// <torch/types.h> says `using namespace at;` in namespace torch; the declaration here names the
// same class, so either header, or both, give torch::Tensor.
using at::Tensor;
namespace nn {
class Module;
}  // namespace nn
}  // namespace torch
