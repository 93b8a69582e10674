// TD3 (Fujimoto et al. 2018) and DDPG (Lillicrap et al. 2016) as Stable-Baselines3 runs them:
// a deterministic tanh actor and its target, n_critics Q networks and their targets (Polyak
// `tau`), the actor and every target updated once per policy_delay critic steps, the critics'
// target taken at target-policy-smoothed next actions (noise target_policy_noise clipped at
// target_noise_clip), exploration by optional action noise (normal or Ornstein-Uhlenbeck),
// uniformly random actions before learning_starts. DDPG is this agent with one critic, no
// delay and no smoothing (DdpgConfig). Float Box actions with finite bounds, [-1, 1] units.
// Hyperparameters: algorithms/td3/td3_config.h; the arithmetic: td3_loss.h. The envs, the
// replay buffer, the rounds and acting are the shared half's (rl/continuous_off_policy_agent.h).
#pragma once

#include <memory>
#include <string>
#include <utility>

#include "rl/algorithm_registry.h"
#include "rl/continuous_off_policy_agent.h"
#include "rl/nets/continuous_control.h"
#include "rl/optim/fused_adam.h"
#include "algorithms/td3/td3_config.h"
#include "algorithms/td3/td3_fused_update.h"
#include "rl/gradient_guard.h"

namespace rlzoo {

class Td3Agent : public ContinuousOffPolicyAgent {
 public:
  // `id` is "td3" or "ddpg"; `config` its parsed settings, and them as its config type writes
  // them (DDPG's without TD3's own keys).
  Td3Agent(const AgentSetup& setup, const std::string& id, std::pair<Td3Config, YAML::Node> config);

  std::string algorithm() const override { return id_; }
  // The actor's action (plus the configured action noise when not options.deterministic, drawn
  // from the agent's own stream), in the Box's units.
  torch::Tensor act(const std::vector<torch::Tensor>& obs, const ActOptions& options = {}) override;

  // The actor for `rlzoo export`.
  std::optional<PolicyExport> export_policy() const override;

  const Td3Config& hyperparams() const { return cfg_; }
  DeterministicActor& actor() { return actor_; }
  ContinuousCritic& critic() { return critic_; }
  ContinuousCritic& critic_target() { return critic_target_; }
  DeterministicActor& actor_target() { return actor_target_; }

  // Whether gradient steps run as plain passes (td3_fused_update.h) where they can: a float32
  // Box observation, tanh or ReLU networks, the CPU. On by default; off takes LibTorch's
  // operations (the same arithmetic and draws, to float rounding).
  void use_fused_update(bool on);
  bool fused_update_applies() const;

 protected:
  std::vector<torch::Tensor> learner_parameters() override;
  YAML::Node resolved_hyperparams() const override;
  void train(std::int64_t gradient_steps, TrainingMonitor& monitor) override;
  std::shared_ptr<BatchEvaluator> acting_evaluator(const ModuleParameterStore* store) const override;
  const torch::nn::Module& acting_network() const override { return *actor_; }
  void save_networks(CheckpointWriter& writer) const override;
  void load_networks(const CheckpointReader& reader) override;

 private:
  struct StepLosses {
    double critic_loss = 0, actor_loss = 0;
  };
  StepLosses torch_step(const UpdateWhere& where, bool actor_turn);
  StepLosses fused_step(const UpdateWhere& where, bool actor_turn);

  std::string id_;
  Td3Config cfg_;
  YAML::Node resolved_;
  DeterministicActor actor_{nullptr}, actor_target_{nullptr};
  ContinuousCritic critic_{nullptr}, critic_target_{nullptr};
  std::unique_ptr<FusedAdam> actor_optimizer_, critic_optimizer_;
  std::vector<torch::Tensor> actor_params_, critic_params_;
  std::unique_ptr<Td3FusedUpdate> fused_;  // null where the networks have no plain chains
  bool fused_on_ = true;
};

// The registry's makers: TD3 and DDPG from their own configs.
class Td3FromPreset : public Td3Agent {
 public:
  explicit Td3FromPreset(const AgentSetup& setup);
};
class DdpgFromPreset : public Td3Agent {
 public:
  explicit DdpgFromPreset(const AgentSetup& setup);
};

void register_td3();

}  // namespace rlzoo
