// The half SAC, TD3 and DDPG share, as Stable-Baselines3's OffPolicyAlgorithm: the training
// envs, the replay buffer (each observation stored once, time-outs bootstrapped from the true
// final observation, n-step returns optional), train_freq rounds with gradient_steps after
// learning_starts, acting through ContinuousActorPolicy (rl/continuous_acting.h) on the inline
// and the actor-thread backends, and the checkpoint parts every one of them saves (counters,
// the acting stream, the buffer, the envs mid-episode). An algorithm adds its
// networks, their update (train()) and how they are saved.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "rl/agent.h"
#include "rl/algorithm_capabilities.h"
#include "rl/box_action_scaling.h"
#include "rl/buffers/replay_buffer.h"
#include "rl/buffers/replay_rows.h"
#include "rl/continuous_acting.h"
#include "rl/train_frequency.h"
#include "core/common/rng.h"
#include "core/runtime/actor_policy.h"
#include "core/torch/module_parameters.h"
#include "core/vector/vector_env.h"

namespace rlzoo {

class TrainingMonitor;
struct Trajectory;

// The settings the shared half reads (from each algorithm's config).
struct OffPolicySettings {
  std::int64_t buffer_size = 1'000'000, learning_starts = 100, batch_size = 256;
  double gamma = 0.99;
  std::int64_t n_step = 1;
  TrainFrequency train_freq;
  std::int64_t gradient_steps = 1, n_envs = 1;
  ContinuousActing acting = ContinuousActing::squashed_gaussian;
  ActionNoise noise;
  GsdeActing gsde;  // with acting squashed_sde (per_episode is set from train_freq)
};

// What SAC, TD3 and DDPG declare: Box actions, every observation kind the shared encoders take,
// off-policy, the inline and actor-thread backends.
AlgorithmCapabilities continuous_off_policy_capabilities();

class ContinuousOffPolicyAgent : public Agent {
 public:
  const EnvSpec& env_spec() const override { return spec_; }
  std::int64_t num_timesteps() const override { return num_timesteps_; }
  std::int64_t n_updates() const { return n_updates_; }
  // Null until learn() (or restore() of a checkpoint with a buffer) creates it.
  const ReplayBuffer* replay_buffer() const { return buffer_.get(); }

  // The learner's half of one round (train_freq vector steps of every env; one step when
  // train_freq counts episodes): stores the transitions, counts steps up to `end`, trains as
  // the synchronous loop would: after each round, or after the round that finishes the
  // phase's n-th episode (or reaches `end` mid-episode). Public so that tests can feed rounds
  // from any source. False when a callback asked to stop.
  bool learn_from_round(const Trajectory& round, std::int64_t end, TrainingMonitor& monitor,
                        CallbackList* callbacks = nullptr);

  CheckpointWriter checkpoint() const override;
  // Restores what checkpoint() wrote into this freshly made agent.
  void restore(const CheckpointReader& reader);

 protected:
  // `id` names the algorithm in errors; the env's action space must be a bounded float Box.
  ContinuousOffPolicyAgent(const AgentSetup& setup, const std::string& id);
  // Called at the end of the derived constructor, with its parsed settings.
  void set_settings(const OffPolicySettings& settings);

  // gradient_steps updates from the buffer (sample()), logging SB3's train/* keys.
  virtual void train(std::int64_t gradient_steps, TrainingMonitor& monitor) = 0;
  // The acting network's rows for ContinuousActorPolicy: the learner's own network when
  // `store` is null, else a new replica following `store`.
  virtual std::shared_ptr<BatchEvaluator> acting_evaluator(const ModuleParameterStore* store) const = 0;
  // What the actor replicas follow.
  virtual const torch::nn::Module& acting_network() const = 0;
  // The algorithm's networks, optimisers and other tensors into / from a checkpoint.
  virtual void save_networks(CheckpointWriter& writer) const = 0;
  virtual void load_networks(const CheckpointReader& reader) = 0;

  void run_training(TrainingRun& run) override;
  ReplaySample sample() const;
  // sample() as float32 rows for the plain-pass updates: the observation must be one float32
  // Box (flattened per row), actions in [-1, 1] units. On the CPU, where the buffer lives.
  ReplayRowTensors sample_rows() const;
  // [-1, 1] units of the buffer's env actions.
  torch::Tensor unit_actions(const torch::Tensor& env_actions) const { return scaling_.to_unit(env_actions); }

  EnvSpec spec_;
  BoxActionScaling scaling_;
  torch::Device device_ = torch::kCPU;
  Rng rng_;  // acting draws on the inline backend and in act()
  std::int64_t num_timesteps_ = 0;
  std::int64_t n_updates_ = 0;

 private:
  std::int64_t buffer_envs() const;
  void ensure_buffer();

  std::string id_;
  OffPolicySettings settings_;
  std::unique_ptr<VectorEnv> venv_;
  std::unique_ptr<ReplayBuffer> buffer_;
  // The training phase under way when train_freq counts episodes (checkpointed).
  std::int64_t phase_steps_ = 0, phase_episodes_ = 0;
};

}  // namespace rlzoo
