// The belief-augmented actor-critic (notes §2.4): the (normalised) state and the (normalised)
// belief each go through their own Linear + tanh layer; the concatenation feeds PPO's
// actor-critic MLPs (separate actor and critic trunks, orthogonal init). Without a belief
// (plain PPO on the same code) only the state layer is there.
#pragma once

#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>

#include "rl/nets/networks.h"
#include "algorithms/secbad/secbad_config.h"

namespace rlzoo::secbad {

class BeliefActorCriticImpl : public torch::nn::Module {
 public:
  // belief_dim 0: no belief input.
  BeliefActorCriticImpl(std::int64_t state_dim, std::int64_t belief_dim, const Space& action_space,
                        const SecbadConfig& cfg);
  // obs = {state [B, S], belief [B, K]} (the belief absent when belief_dim is 0).
  std::pair<ActionDistribution, torch::Tensor> forward(const std::vector<torch::Tensor>& obs,
                                                       const torch::Tensor& mask = {});
  torch::Tensor value(const std::vector<torch::Tensor>& obs) { return forward(obs).second; }
  bool continuous() const { return ac_->continuous(); }
  ActorCritic& actor_critic() { return ac_; }

 private:
  torch::Tensor features(const std::vector<torch::Tensor>& obs);
  torch::nn::Linear state_layer_{nullptr}, belief_layer_{nullptr};
  ActorCritic ac_{nullptr};
};
TORCH_MODULE(BeliefActorCritic);

}  // namespace rlzoo::secbad
