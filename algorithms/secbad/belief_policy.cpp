#include "algorithms/secbad/belief_policy.h"

#include <cmath>
#include <limits>

#include "rl/nets/layers.h"

namespace rlzoo::secbad {

BeliefActorCriticImpl::BeliefActorCriticImpl(std::int64_t state_dim, std::int64_t belief_dim,
                                             const Space& action_space, const SecbadConfig& cfg) {
  state_layer_ = register_module("state_layer", torch::nn::Linear(state_dim, cfg.state_embed));
  std::int64_t features = cfg.state_embed;
  if (belief_dim > 0) {
    belief_layer_ = register_module("belief_layer", torch::nn::Linear(belief_dim, cfg.belief_embed));
    features += cfg.belief_embed;
  }
  const double inf = std::numeric_limits<double>::infinity();
  ac_ = register_module("actor_critic", ActorCritic(Space::box(-inf, inf, {features}), action_space, cfg.ppo.policy));
  if (cfg.ppo.policy.ortho_init) {  // the actor-critic initialises itself
    orthogonal_init(*state_layer_, std::sqrt(2.0));
    if (belief_layer_) orthogonal_init(*belief_layer_, std::sqrt(2.0));
  }
}

torch::Tensor BeliefActorCriticImpl::features(const std::vector<torch::Tensor>& obs) {
  auto x = torch::tanh(state_layer_->forward(obs[0]));
  if (belief_layer_) x = torch::cat({x, torch::tanh(belief_layer_->forward(obs.at(1)))}, -1);
  return x;
}

std::pair<ActionDistribution, torch::Tensor> BeliefActorCriticImpl::forward(const std::vector<torch::Tensor>& obs,
                                                                             const torch::Tensor& mask) {
  return ac_->forward({features(obs)}, mask);
}

}  // namespace rlzoo::secbad
