// A replay sample as raw float32 rows, for updates written as plain passes over memory (SAC's
// and TD3's, algorithms/*/..._fused_update.h): float32 Box observations flattened to [rows,
// obs_dim], actions in [-1, 1] units [rows, action_dim], the rest [rows]. The tensors behind
// the pointers are kept in ReplayRowTensors, which the caller holds for the update's length.
#pragma once

#include <cstdint>

#include "core/torch/tensor.h"

namespace rlzoo {

struct ReplayRows {
  const float* obs = nullptr;
  const float* next_obs = nullptr;
  const float* actions = nullptr;
  const float* rewards = nullptr;
  const float* discounts = nullptr;
  const float* terminated = nullptr;
  std::int64_t rows = 0;
};

struct ReplayRowTensors {
  torch::Tensor obs, next_obs, actions, rewards, discounts, terminated;  // contiguous float32 CPU
  torch::Tensor obs_bytes, next_obs_bytes;  // the sample's bytes, which obs and next_obs may alias

  ReplayRows rows() const {
    return {obs.data_ptr<float>(),     next_obs.data_ptr<float>(),  actions.data_ptr<float>(),
            rewards.data_ptr<float>(), discounts.data_ptr<float>(), terminated.data_ptr<float>(),
            rewards.size(0)};
  }
};

}  // namespace rlzoo
