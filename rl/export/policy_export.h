// What an agent hands to the policy exporters (rl/export/, `rlzoo export`): its acting
// network described by kind and configuration, the network's trained tensors under the names
// the C++ modules give them, and the preprocessing act() applies around the network. It is the
// seam between algorithms/ (Agent::export_policy) and the exporters, so neither side needs the
// other's internals. What the exporters rebuild is act() with deterministic = true.
#pragma once

#include "core/torch/tensor.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "rl/nets/policy_config.h"
#include "core/spaces/space.h"

namespace rlzoo {

struct PolicyExport {
  enum class Network {
    // ActorCritic (rl/nets/networks.h), feed-forward or recurrent: actions are the mode of
    // the policy head's distribution; values from the value head.
    actor_critic,
    // QNetwork (rl/nets/networks.h), plain or dueling: greedy actions; Q-values.
    q_network,
    // An MLP trunk ("trunk.") and a linear head ("head.") on float vector observations, with a
    // state-independent "log_std" for Box actions: the policy-gradient family's PgPolicy.
    mlp_policy,
    // SquashedGaussianActor or DeterministicActor (rl/nets/continuous_control.h): "encoder.",
    // "trunk." and "head."; the deterministic action is tanh of the head's first dim(A)
    // outputs, rescaled from [-1, 1] to the Box's bounds in float64 (SAC, TD3, DDPG).
    tanh_actor,
  };
  // (obs - mean) / sqrt(var + epsilon) in float64, clipped to +-clip (0: no clipping), then
  // float32: the ObservationNormalizer act() applies to a float Box observation.
  struct ObservationNormalization {
    std::vector<double> mean, var;
    double clip = 0.0;
    double epsilon = 1e-8;
  };

  Network network = Network::actor_critic;
  Space observation_space, action_space;
  PolicyConfig policy;  // the configuration the network was built with
  // The network's named_parameters() and named_buffers(), detached copies.
  std::vector<std::pair<std::string, torch::Tensor>> tensors;
  std::optional<ObservationNormalization> observation_normalization;
  // Added to the network's discrete action index (DQN acts in the space's own numbering).
  std::int64_t discrete_action_offset = 0;
  // tanh_actor: the tanh is taken after the cast to float64 (SAC's tanh(mean)), else before
  // it, in float32 (TD3's and DDPG's actor output).
  bool tanh_in_float64 = false;
  // tanh_actor: the mean is clipped to +-clip_mean before the tanh (0: not; SAC's gSDE actor).
  double clip_mean = 0.0;
};

// Detached CPU copies of a module's parameters and buffers with their qualified names.
std::vector<std::pair<std::string, torch::Tensor>> export_tensors(const torch::nn::Module& module);

// The description every agent starts from: the network's kind, the env's spaces, the policy
// configuration and the module's tensors (export_tensors). Agents add normalisation and offsets.
PolicyExport policy_export_of(PolicyExport::Network network, const Space& observation_space,
                              const Space& action_space, const PolicyConfig& policy, const torch::nn::Module& module);

}  // namespace rlzoo
