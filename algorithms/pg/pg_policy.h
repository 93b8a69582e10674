// The policies of the policy-gradient family (GPOMDP, SVRPG, SRVR-PG, STORM-PG): an MLP (one
// hidden layer of 64 tanh units by default, as in the STORM-PG paper) giving softmax logits for
// a Discrete action space, or the mean of a Gaussian with a state-independent log standard
// deviation for a Box action space: learned, or fixed (a buffer, not a parameter, so that the
// estimators and Adam see only the mean's weights). Observations are float32 vectors.
#pragma once

#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>

#include "rl/nets/layers.h"
#include "rl/nets/policy_config.h"
#include "core/spaces/space.h"

namespace rlzoo::pg {

class PgPolicyImpl : public torch::nn::Module {
 public:
  PgPolicyImpl(const Space& observation_space, const Space& action_space, const PolicyConfig& config,
               bool fixed_std = false);

  bool continuous() const { return continuous_; }
  // log pi(a | s) for obs [N, d] and actions ([N] int64 or [N, k] float32) -> [N] float32.
  torch::Tensor log_prob(const torch::Tensor& obs, const torch::Tensor& actions);
  // Sampled (or most probable, when deterministic) actions for obs [N, d], from the default
  // generator; Gaussian samples are not clipped here.
  torch::Tensor act(const torch::Tensor& obs, bool deterministic);

 private:
  bool continuous_;
  Mlp trunk_{nullptr};
  torch::nn::Linear head_{nullptr};
  torch::Tensor log_std_;
};
TORCH_MODULE(PgPolicy);

// The parameters of a module as one flat float64 vector, and back.
torch::Tensor flat_parameters(torch::nn::Module& m);
void set_flat_parameters(torch::nn::Module& m, const torch::Tensor& flat);

}  // namespace rlzoo::pg
