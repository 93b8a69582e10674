// Deep Q-Network (Mnih et al. 2015) as Stable-Baselines3 runs it: a replay buffer (each
// observation stored once, time-outs bootstrapped from the true final observation), a target
// network (hard copy every target_update_interval env steps, or Polyak tau), a linear epsilon
// schedule per env step, Huber (or MSE) TD loss, global grad-norm clipping, train_freq /
// gradient_steps / learning_starts. Options beyond SB3: Double DQN (double_q), a dueling head
// (policy.dueling) and n-step returns (n_step). Discrete action spaces only.
// Hyperparameters: algorithms/dqn/dqn_config.h.
//
// Acting is DqnActorPolicy (dqn_actor.h) on every backend. Inline, the learner's thread steps
// n_envs envs with it in train_freq rounds, reading the learner's network and exploration
// stream. With `runtime: {actors: N, ...}` in the preset, N actor threads step the envs (each
// with its own epsilon, Ape-X style) and feed one replay buffer while this thread learns; the
// replay ratio (gradient steps per env step) is the synchronous loop's. Callbacks see a round's
// steps once it is collected; when one asks to stop, the rest of that round (fewer than
// train_freq steps) is not stored or counted, and the replay buffer ends its streams there.
//
// Legal-action masks are honoured when acting (greedy and random actions alike); the
// bootstrap max over next actions does not see them (the replay buffer does not store masks).
#pragma once

#include <memory>
#include <optional>

#include "rl/agent.h"
#include "rl/algorithm_registry.h"
#include "rl/buffers/replay_buffer.h"
#include "rl/nets/networks.h"
#include "rl/optim/fused_adam.h"
#include "algorithms/dqn/dqn_config.h"
#include "algorithms/dqn/dqn_fused_update.h"
#include "core/common/rng.h"
#include "core/runtime/actor_policy.h"
#include "core/torch/module_parameters.h"
#include "core/vector/vector_env.h"

namespace rlzoo {

class TrainingMonitor;
struct StepEpisodes;
struct Trajectory;

class DqnAgent : public Agent {
 public:
  // Throws a ConfigError for invalid hyperparams. (An env whose actions are not Discrete is
  // refused before, at the preset's `env` key, against the declared capabilities.)
  explicit DqnAgent(const AgentSetup& setup);

  std::string algorithm() const override { return "dqn"; }
  const EnvSpec& env_spec() const override { return spec_; }
  std::int64_t num_timesteps() const override { return num_timesteps_; }
  // Greedy actions when options.deterministic, else epsilon-greedy with the current
  // exploration_rate(); both keep to options.action_mask.
  torch::Tensor act(const std::vector<torch::Tensor>& obs, const ActOptions& options = {}) override;
  // The online Q network (greedy actions in the action space's numbering).
  std::optional<PolicyExport> export_policy() const override;
  // Networks, optimizer, generator states, counters, the training envs mid-episode and
  // (unless the preset's checkpoint.save_replay_buffer is false) the replay buffer. Taken
  // between train_freq blocks (Callback::on_rollout_end), a checkpoint resumes bit for bit.
  CheckpointWriter checkpoint() const override;
  // Restores what checkpoint() wrote into this freshly made agent.
  void restore(const CheckpointReader& reader);

  const DqnConfig& hyperparams() const { return cfg_; }
  // Epsilon for the next env step (the linear schedule over the preset's n_timesteps).
  double exploration_rate() const;
  std::int64_t n_updates() const { return n_updates_; }
  QNetwork& q_net() { return q_net_; }
  // Where the networks, optimiser state and sampled batches live (the preset's `device`).
  const torch::Device& device() const { return device_; }
  QNetwork& q_target() { return q_target_; }
  // Whether gradient steps run as plain passes (dqn_fused_update.h) where they can: a float32
  // Box observation, tanh or ReLU, no dueling head, the fused path on, the CPU. On by default;
  // off takes LibTorch's autograd through the same fused chains (the same values bit for bit).
  void use_fused_update(bool on) { fused_on_ = on; }
  bool fused_update_applies() const {
    return fused_on_ && fused_update_ && q_net_->plain_chain() && q_target_->plain_chain() && fused_update_->applies();
  }
  // Null until learn() (or restore() of a checkpoint with a buffer) creates it.
  const ReplayBuffer* replay_buffer() const { return buffer_.get(); }

  // The learner's half of one runtime round (train_freq vector steps of every env, merged
  // along the env axis): stores its transitions, counts steps up to `end`, trains as the
  // synchronous loop would after those steps. Public so that tests can feed rounds from any
  // source; learn() calls it. Returns false when a callback asked to stop.
  bool learn_from_round(const Trajectory& round, std::int64_t end, TrainingMonitor& monitor,
                        CallbackList* callbacks = nullptr);

 protected:
  void run_training(TrainingRun& run) override;
  std::vector<torch::Tensor> learner_parameters() override;  // the online and the target network
  YAML::Node resolved_hyperparams() const override;

 private:
  // Epsilon-greedy over q [B, n] (masks [B, n] bool or undefined) with the agent's Rng.
  torch::Tensor epsilon_greedy(const torch::Tensor& q, const torch::Tensor& masks, double eps);
  void train(std::int64_t gradient_steps, TrainingMonitor& monitor);
  // The end of a train_freq cycle of `collected` vector steps.
  void end_cycle(std::int64_t collected, bool stopped, TrainingMonitor& monitor);
  // Q-values of `q` for acting (the learner's own network inline, a replica following
  // `store` on actor threads).
  std::shared_ptr<BatchEvaluator> q_values(QNetwork q, const ModuleParameterStore* store) const;
  // Envs feeding the replay buffer: runtime.actors * envs_per_actor, else n_envs.
  std::int64_t buffer_envs() const;
  void ensure_buffer();
  void update_target();

  DqnConfig cfg_;
  EnvSpec spec_;
  torch::Device device_ = torch::kCPU;
  QNetwork q_net_{nullptr}, q_target_{nullptr};
  std::unique_ptr<FusedAdam> optimizer_;
  // The gradient step as plain passes (dqn_fused_update.h) where the networks allow it; null
  // otherwise (dueling, an encoder, the fused path off), and idle on a GPU.
  std::unique_ptr<DqnFusedUpdate> fused_update_;
  bool fused_on_ = true;
  std::unique_ptr<VectorEnv> venv_;
  std::unique_ptr<ReplayBuffer> buffer_;
  Rng rng_;  // exploration coins and random actions
  std::int64_t num_timesteps_ = 0;
  std::int64_t n_calls_ = 0;    // vector-env steps (SB3's _n_calls): the target-update clock
  std::int64_t n_updates_ = 0;  // gradient steps
};

void register_dqn();

}  // namespace rlzoo
