// From raw observation bytes (the layout of core/spaces/space.h, as vector envs and replay
// buffers store them) to tensors, without copying where the layout allows.
#pragma once

#include <vector>

#include "core/spaces/space.h"
#include "core/torch/tensor.h"

namespace rlzoo {

// LibTorch dtype of a space's elements (Discrete/MultiDiscrete -> int64, Box -> its dtype).
torch::ScalarType torch_dtype(DType t);

// Views a [batch, byte_size] block of observations as typed tensors, one per field for a
// Dict space (in field order), one for any other space: shape [batch, *space.shape()]
// ([batch] for Discrete). The tensors alias `data` (which must outlive them and be 8-byte
// aligned) unless `copy` is set.
std::vector<torch::Tensor> observation_tensors(const Space& space, const void* data, std::int64_t batch,
                                               bool copy = false);
// The same from a uint8 tensor [batch, byte_size] (e.g. gathered from a replay buffer);
// the result aliases `bytes`, which must be contiguous.
std::vector<torch::Tensor> observation_tensors(const Space& space, const torch::Tensor& bytes);
// The observations of one float32 Box from such bytes as rows [batch, numel] (aliasing
// `bytes`), for updates written as plain passes over memory; `who` names the update in the
// error thrown for any other space.
torch::Tensor float_observation_rows(const Space& space, const torch::Tensor& bytes, const char* who);

// True for a Box that looks like an image: uint8 with shape (H, W, C) or (C, H, W).
bool is_image_space(const Space& space);

}  // namespace rlzoo
