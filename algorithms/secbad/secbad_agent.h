// SeCBAD (Chen et al., NeurIPS 2022) and its baselines on one code path: PPO on the state and a
// belief over the hidden context, the belief coming from a VAE trained alongside (notes §2).
//
//   secbad         beliefs from the current segment only: training rollouts and VAE updates
//                  segment with the env's true change points (train_segmentation: oracle, as the
//                  released code) or the inferred ones; evaluation infers the segment length
//                  (eval_segmentation: inferred) with the change-point posterior.
//   varibad        one belief over the whole episode (no segments).
//   belief_oracle  the policy is given the true context instead of a belief.
//   belief_ppo     plain PPO on the state (no belief), same network and settings.
// (RL², the recurrent baseline, is ppo with a recurrent policy: algorithms/ppo.)
//
// Each iteration: a rollout of n_steps x n_envs steps with the current beliefs, finished episodes
// into the VAE's buffer, `vae.updates_per_iteration` VAE steps (once `pretrain_frames` steps
// were collected), then PPO's update on (state, belief) inputs. The RL loss does not reach the
// encoder (beliefs are inputs, detached). Envs must expose a context (core/env/contextual.h)
// under a PiecewiseContext wrapper for secbad and belief_oracle (the truth is read from info).
//
// evaluate() runs the episodes as a batch with the evaluation segmentation and records
// diagnostics (eval_diagnostics()): how often the most likely segment length is within 2 steps
// of the true one, the same for a prior-only guess, and the mean number of live hypotheses.
// act() sees no history, so it acts on the prior belief; evaluate() and `rlzoo enjoy` track it.
#pragma once

#include <memory>

#include "rl/agent.h"
#include "rl/algorithm_registry.h"
#include "rl/buffers/rollout_buffer.h"
#include "rl/normalizers.h"
#include "algorithms/secbad/belief_policy.h"
#include "algorithms/secbad/belief_tracker.h"
#include "algorithms/secbad/belief_vae.h"
#include "algorithms/secbad/secbad_config.h"
#include "core/vector/vector_env.h"

namespace rlzoo {
class TrainingMonitor;
}

namespace rlzoo::secbad {

enum class Method { secbad, varibad, oracle, none };

struct EvalDiagnostics {
  double map_within_2 = 0;    // fraction of steps where |MAP length - true length| <= 2
  double prior_within_2 = 0;  // the same for the prior-only most likely length
  double mean_hypotheses = 0;
  // The two fractions against segments that start only where the context really changed (a
  // redraw may repeat the context, e.g. HalfCheetahDir's direction half of the time: such a
  // change leaves nothing to detect).
  double map_within_2_changed = 0, prior_within_2_changed = 0;
  std::int64_t steps = 0;
};

class SecbadAgent : public Agent {
 public:
  SecbadAgent(const AgentSetup& setup, Method method);

  std::string algorithm() const override;
  const EnvSpec& env_spec() const override { return spec_; }
  std::int64_t num_timesteps() const override { return num_timesteps_; }
  torch::Tensor act(const std::vector<torch::Tensor>& obs, const ActOptions& options = {}) override;
  EvalResult evaluate(int episodes, bool deterministic = true, std::uint64_t seed = 1'000'000,
                      const EvalObserver& observer = {}) override;
  std::vector<std::pair<std::string, double>> eval_metrics() const override;
  CheckpointWriter checkpoint() const override;
  void restore(const CheckpointReader& reader);

  const SecbadConfig& hyperparams() const { return cfg_; }
  const EvalDiagnostics& eval_diagnostics() const { return diagnostics_; }

 protected:
  void run_training(TrainingRun& run) override;
  YAML::Node resolved_hyperparams() const override;

 private:
  bool uses_vae() const { return method_ == Method::secbad || method_ == Method::varibad; }
  std::int64_t belief_dim() const;
  Segmentation segmentation(bool training) const;
  // Per env: state [N, S] float, the policy's belief input [N, K] (raw), from the vector env and tracker.
  torch::Tensor states(const VectorEnv& venv, bool final_obs = false) const;
  torch::Tensor belief_inputs(VectorEnv& venv, const BeliefTracker* tracker) const;
  std::vector<torch::Tensor> policy_inputs(const torch::Tensor& states, const torch::Tensor& beliefs, bool update);
  torch::Tensor one_hot_actions(const torch::Tensor& actions) const;
  torch::Tensor to_env_actions(const torch::Tensor& actions) const;
  void collect_rollout(TrainingMonitor& monitor, CallbackList* callbacks, bool& stop);
  void update_vae(TrainingMonitor& monitor);
  void update_policy(TrainingMonitor& monitor);
  void create_envs();
  // The VAE's record of each env's episode in progress.
  void start_episodes();
  void close_episode(std::size_t i, const torch::Tensor& first_state);

  Method method_;
  SecbadConfig cfg_;
  EnvSpec spec_;
  std::int64_t state_dim_ = 0, action_dim_ = 0, context_dim_ = 0;
  SegmentPrior prior_;
  BeliefActorCritic policy_{nullptr};
  BeliefEncoder encoder_{nullptr};
  RewardDecoder reward_decoder_{nullptr};
  torch::nn::Sequential task_decoder_{nullptr};
  std::unique_ptr<torch::optim::Adam> optimizer_, vae_optimizer_;
  std::unique_ptr<ObservationNormalizer> state_norm_, belief_norm_;
  std::unique_ptr<RewardNormalizer> reward_norm_;
  std::unique_ptr<VectorEnv> venv_;
  std::unique_ptr<BeliefTracker> tracker_;
  std::unique_ptr<RolloutBuffer> buffer_;
  EpisodeBuffer episodes_;
  struct OpenEpisode {
    std::vector<torch::Tensor> states, actions, contexts;
    std::vector<double> rewards;
    std::vector<std::uint8_t> starts;
    bool next_start = true;  // the next step begins a segment
  };
  std::vector<OpenEpisode> open_;
  // open_ and episodes_ as named tensors (a checkpoint's episodes.pt), and back (open_ only
  // when `open_episodes`: the envs continue their episodes).
  TensorMap episode_state() const;
  void load_episode_state(const TensorMap& state, const std::string& where, bool open_episodes);
  Rng rng_;
  torch::Tensor action_low_, action_high_;
  std::int64_t num_timesteps_ = 0, n_updates_ = 0, vae_updates_ = 0;
  EvalDiagnostics diagnostics_;
};

void register_secbad();

}  // namespace rlzoo::secbad
