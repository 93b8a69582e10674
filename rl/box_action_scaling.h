// Continuous actions in [-1, 1] units and a Box's own bounds, as Stable-Baselines3's
// scale_action / unscale_action: the off-policy learners (SAC, TD3, DDPG) act and learn in
// [-1, 1] and the env sees low + (a + 1) (high - low) / 2. A Box with an infinite bound has no
// such map: the constructor refuses it.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/common/bytes.h"
#include "core/spaces/space.h"
#include "core/torch/tensor.h"

namespace rlzoo {

class BoxActionScaling {
 public:
  // A UserError naming the space and `who` unless it is a float Box with finite bounds.
  BoxActionScaling(const Space& action_space, const std::string& who);
  std::int64_t dim() const { return static_cast<std::int64_t>(low_.size()); }
  // rows x dim() values in [-1, 1] -> the env's action bytes (the space's float dtype).
  void to_env(std::span<const float> unit, Bytes out) const;
  // Env actions [B, ...] (any float dtype) -> [B, dim()] float32 in [-1, 1] units.
  torch::Tensor to_unit(const torch::Tensor& env_actions) const;
  // [B, dim()] in [-1, 1] -> env actions [B, ...action shape] float32 (what act() returns).
  torch::Tensor to_env(const torch::Tensor& unit) const;

 private:
  Space space_;
  std::vector<double> low_, high_;
};

}  // namespace rlzoo
