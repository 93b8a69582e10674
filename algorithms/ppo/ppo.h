// Proximal Policy Optimization (Schulman et al. 2017) with the implementation details of
// Stable-Baselines3 / CleanRL: vector envs, GAE, clipped surrogate, optional value clipping,
// entropy bonus, per-minibatch advantage normalisation, linear LR/clip annealing, global
// grad-norm clipping, target-KL early stop, observation/reward normalisation; Discrete
// (with legal-action masks) and Box actions. Hyperparameters: algorithms/ppo/ppo_config.h.
//
// With `policy.recurrent: {cell: lstm|gru, ...}` (rl/nets/policy_config.h) it is recurrent
// PPO (SB3-contrib's RecurrentPPO; the update is CleanRL's ppo_atari_lstm): each training env
// keeps its RNN state across steps and rollouts, zeroed where an episode starts; the buffer
// keeps the state at the rollout's start and the episode starts; a minibatch is the whole
// rollout of batch_size / n_steps envs (at least 1), re-run from that state, so the update
// recomputes the rollout's log-probabilities and values exactly before its first step. A
// time-out is bootstrapped with V(final observation) from the state before the reset.
//
// Rollouts are collected by PpoActorPolicy (ppo_actor.h) on every backend and recorded from the
// rounds the backend delivers (ppo_rollouts.cpp). Inline, the learner's thread is the one actor,
// stepping n_envs envs with the learner's own network. With `runtime: {actors: N, ...}` in the
// preset, N actor threads collect each rollout in
// parallel (n_steps steps of their envs, all with the parameters of the last update; see
// ppo_actor.h) and this thread runs the update. With normalize_obs each actor starts a
// trajectory from the statistics published beside those parameters (ActingPolicy) and folds in
// its observations step by step, as the inline loop does, sending the normalised observations
// with the trajectory; the learner trains on those and folds the round's observations into the
// statistics it publishes next. A recurrent policy's actors keep their envs' RNN states and send each step's start
// flag and state with the trajectory; the learner re-runs every round from those states, as the
// inline loop re-runs its rollout from the state it began with.
#pragma once

#include <memory>
#include <optional>

#include "rl/agent.h"
#include "rl/algorithm_registry.h"
#include "rl/buffers/rollout_buffer.h"
#include "rl/nets/networks.h"
#include "rl/normalizers.h"
#include "rl/optim/fused_adam.h"
#include "algorithms/ppo/ppo_config.h"
#include "algorithms/ppo/ppo_fused_update.h"
#include "core/runtime/actor_policy.h"
#include "core/torch/module_parameters.h"
#include "core/vector/vector_env.h"

namespace rlzoo {

struct StepEpisodes;
struct Trajectory;
struct PpoActorLayout;

// What actor threads and processes replicate: the actor-critic and, with normalize_obs, the
// observation statistics the actors start each trajectory from (float64 buffers, the last
// three tensors of a snapshot), published as one snapshot so that an actor never pairs weights
// with another version's statistics.
struct ActingPolicyImpl : torch::nn::Module {
  ActingPolicyImpl(ActorCritic p, std::int64_t obs_numel, bool normalized);
  ActorCritic policy;
  torch::Tensor obs_mean, obs_var, obs_count;  // undefined without normalisation
};
TORCH_MODULE(ActingPolicy);

class PpoAgent : public Agent {
 public:
  explicit PpoAgent(const AgentSetup& setup);

  std::string algorithm() const override { return "ppo"; }
  const EnvSpec& env_spec() const override { return spec_; }
  std::int64_t num_timesteps() const override { return num_timesteps_; }
  torch::Tensor act(const std::vector<torch::Tensor>& obs, const ActOptions& options = {}) override;
  ActResult act_with_state(const std::vector<torch::Tensor>& obs, const ActOptions& options = {}) override;
  bool recurrent() const override { return policy_->recurrent(); }
  // The actor-critic with the observation normaliser's statistics.
  std::optional<PolicyExport> export_policy() const override;
  CheckpointWriter checkpoint() const override;
  // Acting for actor processes: sampled actions with log-probabilities and values as extras,
  // on-policy (rounds hold only trajectories made with the newest parameters).
  std::optional<ActorRole> actor_role() override;
  void restore(const CheckpointReader& reader);

  const PpoConfig& hyperparams() const { return cfg_; }
  ActorCritic& policy() { return policy_; }
  // Whether minibatch steps run as plain passes (ppo_fused_update.h) where they can: a
  // Categorical feed-forward policy on its fused chains, a float32 Box observation, the CPU. On
  // by default; off takes autograd through the same chains (the same steps bit for bit).
  void use_fused_update(bool on) { fused_update_on_ = on; }
  // Where the policy, optimiser state and minibatches live (the preset's `device`); rollouts
  // and normaliser statistics stay on the CPU.
  const torch::Device& device() const { return device_; }

  // The pieces of the update, public for diagnostics and tests. The last rollout (null before
  // the first); its minibatches as the update draws them (samples, or for recurrent policies
  // whole sequences of envs_per_minibatch() envs); the action distribution and values the
  // current parameters give a minibatch.
  const RolloutBuffer* rollout_buffer() const { return buffer_.get(); }
  std::vector<RolloutBuffer::Batch> minibatches() const;
  std::int64_t envs_per_minibatch() const;
  std::pair<ActionDistribution, torch::Tensor> evaluate_minibatch(const RolloutBuffer::Batch& batch);

 protected:
  void run_training(TrainingRun& run) override;
  std::vector<torch::Tensor> learner_parameters() override;  // the actor-critic
  YAML::Node resolved_hyperparams() const override;

 private:
  // Observation tensors as the network sees them (normalised when configured).
  std::vector<torch::Tensor> preprocess(std::vector<torch::Tensor> obs, bool update);
  torch::Tensor to_env_actions(const torch::Tensor& actions) const;
  // V(obs) of envs continuing from `state` (recurrent policies; reset where `starts` [B] is set).
  torch::Tensor continued_values(const std::vector<torch::Tensor>& obs, const torch::Tensor& state,
                                 const torch::Tensor& starts);
  // One vector step into the rollout buffer (obs already preprocessed; episode_starts: the
  // recurrent policy's flags for obs, and state_after its state after this step, else both
  // undefined): rewards normalised, time-outs bootstrapped from the final observations,
  // episodes reported. Returns false when a callback asked to stop.
  bool record_step(const std::vector<torch::Tensor>& obs, const torch::Tensor& actions, const torch::Tensor& values,
                   const torch::Tensor& log_probs, const torch::Tensor& masks, const torch::Tensor& episode_starts,
                   const torch::Tensor& state_after, std::span<const double> rewards, const StepEpisodes& episodes,
                   ConstBytes final_obs, class TrainingMonitor& monitor, CallbackList* callbacks);
  // V(final observation) of the rows `timeouts` [k] of a step's n envs, for the bootstrap.
  torch::Tensor timeout_values(ConstBytes final_obs, std::int64_t n, const torch::Tensor& timeouts,
                               const torch::Tensor& state_after);
  // A round (n_steps x every env) into the buffer, with GAE. False: a callback stopped.
  bool record_round(const Trajectory& round, class TrainingMonitor& monitor, CallbackList* callbacks);
  // record_round()'s steps from the round's rows without a tensor per step, where that can be
  // done: a feed-forward policy on one float32 observation field, no masks. Nothing recorded
  // (nullopt) otherwise; else whether to go on.
  std::optional<bool> record_round_rows(const Trajectory& round, class TrainingMonitor& monitor,
                                        CallbackList* callbacks);
  // Acting through `acting` (the learner's own ActingPolicy inline, a replica following `store`
  // on actors), giving [action, log-prob, value] rows (recurrent: [episode start, state] rows
  // in, the next state appended to the output).
  std::shared_ptr<BatchEvaluator> acting_evaluator(ActingPolicy acting, const ModuleParameterStore* store) const;
  // A new replica following `store` (actor threads and processes).
  std::shared_ptr<BatchEvaluator> make_replica(const ModuleParameterStore& store) const;
  // policy_ with the observation statistics (made on first use; shares policy_'s parameters).
  ActingPolicy& acting_policy();
  // Floats in one env's recurrent state (0 for a feed-forward policy).
  std::size_t state_floats() const;
  // What an actor sends and keeps (ppo_actor.h): masks, recurrent state, normalised observations.
  PpoActorLayout actor_layout() const;
  // Publishes the policy with the current observation statistics (the actors' next version);
  // statistics_only: just the statistics (the inline backend, whose actor reads policy_ itself).
  void publish(ModuleParameterStore& store, bool statistics_only);
  std::int64_t rollout_envs() const;
  void update(class TrainingMonitor& monitor);
  void create_envs();
  void reset_recurrent_state();

  PpoConfig cfg_;
  EnvSpec spec_;
  torch::Device device_ = torch::kCPU;
  ActorCritic policy_{nullptr};
  ActingPolicy acting_{nullptr};  // policy_ with the statistics actors normalise with (made on first publish)
  std::unique_ptr<FusedAdam> optimizer_;
  PpoFusedUpdate fused_update_{policy_};
  bool fused_update_on_ = true;
  std::unique_ptr<ObservationNormalizer> obs_norm_;
  std::unique_ptr<RewardNormalizer> reward_norm_;
  std::unique_ptr<VectorEnv> venv_;
  std::unique_ptr<RolloutBuffer> buffer_;
  torch::Tensor action_low_, action_high_;
  // Recurrent policies: the training envs' RNN state [S, layers, n_envs, hidden] (on device_)
  // and whether their current observations start an episode [n_envs] (on the CPU; undefined
  // for feed-forward ones).
  torch::Tensor rnn_state_, episode_starts_;
  std::int64_t num_timesteps_ = 0;
  std::int64_t n_updates_ = 0;
};

void register_ppo();

}  // namespace rlzoo
