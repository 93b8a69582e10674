// Soft Actor-Critic (Haarnoja et al. 2018) as Stable-Baselines3 runs it: a squashed Gaussian
// actor, n_critics Q networks with Polyak-averaged targets, the entropy coefficient learned
// towards -dim(A) (or fixed), uniformly random actions before learning_starts, a replay buffer
// that stores each observation once and bootstraps time-outs from the true final observation,
// train_freq / gradient_steps / target_update_interval, n-step returns optional. Float Box
// actions with finite bounds; the networks act and learn in [-1, 1] units.
// Hyperparameters: algorithms/sac/sac_config.h; the arithmetic: sac_loss.h.
//
// The envs, the replay buffer, the rounds and acting (inline, or `runtime: {actors: N}` actor
// threads with replicas of the actor feeding one replay buffer) are the shared half's
// (rl/continuous_off_policy_agent.h).
#pragma once

#include <memory>
#include <optional>

#include "algorithms/sac/sac_fused_update.h"
#include "rl/algorithm_registry.h"
#include "rl/gradient_guard.h"
#include "rl/continuous_off_policy_agent.h"
#include "rl/nets/continuous_control.h"
#include "rl/optim/fused_adam.h"
#include "algorithms/sac/sac_config.h"

namespace rlzoo {

class SacAgent : public ContinuousOffPolicyAgent {
 public:
  // Throws a ConfigError for invalid hyperparams, a UserError for an action space without
  // finite bounds.
  explicit SacAgent(const AgentSetup& setup);

  std::string algorithm() const override { return "sac"; }
  // tanh(mean) when options.deterministic, else a draw of the policy (the agent's own stream);
  // in the Box's units.
  torch::Tensor act(const std::vector<torch::Tensor>& obs, const ActOptions& options = {}) override;

  // The deterministic actor (tanh of the mean) for `rlzoo export`.
  std::optional<PolicyExport> export_policy() const override;

  const SacConfig& hyperparams() const { return cfg_; }
  // The entropy coefficient alpha in use now.
  double entropy_coefficient() const;
  SquashedGaussianActor& actor() { return actor_; }
  ContinuousCritic& critic() { return critic_; }
  ContinuousCritic& critic_target() { return critic_target_; }

  // Whether gradient steps run as plain passes (sac_fused_update.h) where they can: a float32
  // Box observation, tanh or ReLU networks, no gSDE, the CPU. On by default; off takes
  // LibTorch's operations (the same arithmetic and draws, to float rounding).
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
    double actor_loss = 0, critic_loss = 0, alpha = 0, ent_loss = 0;
  };
  StepLosses torch_step(const UpdateWhere& where);
  StepLosses fused_step(const UpdateWhere& where);

  SacConfig cfg_;
  EntropyCoefficient ent_;
  double target_entropy_;
  SquashedGaussianActor actor_{nullptr};
  ContinuousCritic critic_{nullptr}, critic_target_{nullptr};
  torch::Tensor log_ent_coef_;  // [1], learned when ent_.learned
  std::unique_ptr<FusedAdam> actor_optimizer_, critic_optimizer_, ent_optimizer_;
  std::vector<torch::Tensor> actor_params_, critic_params_;
  std::unique_ptr<SacFusedUpdate> fused_;  // null where the networks have no plain chains
  bool fused_on_ = true;
};

void register_sac();

}  // namespace rlzoo
