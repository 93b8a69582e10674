// Offline agents trained on an rlzoo dataset (docs/datasets.md):
//
//   dt  the Decision Transformer (Chen et al. 2021; notes §3): a causal transformer over
//       (return-to-go, state, action) tokens, steered by the return it is asked to achieve.
//   bc  behaviour cloning with an MLP on the last `context` states; with pct_traj < 1 it is
//       "%BC" (cloning only the best episodes).
//
// learn(n) takes n gradient steps (offline agents count gradient steps where online ones count
// env steps: n_timesteps, log_every, eval.every and checkpoint.every are in gradient steps). The
// dataset is read at the first learn(); a saved agent acts and evaluates without it (the state
// statistics travel in the checkpoint).
//
// Acting is window-based: act_with_state() carries the last K steps (normalised states, actions,
// returns-to-go, timesteps) as its recurrent state, so `rlzoo eval`/`enjoy` and Agent::evaluate
// work unchanged. options.target_return [B] is the return still to be achieved from this step
// (the caller subtracts the rewards it got); without it the return-to-go is held at the
// configured target (the "delayed" mode). evaluate() does the subtraction itself, batched over
// the episodes.
#pragma once

#include <memory>
#include <optional>

#include "rl/agent.h"
#include "rl/algorithm_registry.h"
#include "algorithms/dt/decision_transformer.h"
#include "algorithms/dt/dt_config.h"
#include "algorithms/dt/offline_data.h"

namespace rlzoo {
class TrainingMonitor;
}

namespace rlzoo::dt {

enum class ModelKind { dt, bc };

class DtAgent : public Agent {
 public:
  DtAgent(const AgentSetup& setup, ModelKind kind);

  std::string algorithm() const override { return kind_ == ModelKind::dt ? "dt" : "bc"; }
  const EnvSpec& env_spec() const override { return spec_; }
  std::int64_t num_timesteps() const override { return num_steps_; }
  torch::Tensor act(const std::vector<torch::Tensor>& obs, const ActOptions& options = {}) override;
  ActResult act_with_state(const std::vector<torch::Tensor>& obs, const ActOptions& options = {}) override;
  bool recurrent() const override { return window_ > 1; }
  EvalResult evaluate(int episodes, bool deterministic = true, std::uint64_t seed = 1'000'000,
                      const EvalObserver& observer = {}) override;
  std::vector<std::pair<std::string, double>> eval_metrics() const override;
  CheckpointWriter checkpoint() const override;
  void restore(const CheckpointReader& reader);

  const DtConfig& hyperparams() const { return cfg_; }
  // Throws a UserError naming the dataset when it is missing or does not fit the env (reads its
  // manifest only). A new agent is checked at once; a saved one acts without its data.
  void check_dataset() const;
  // The return evaluate() and act() ask for: target_return, or the dataset's best when 0.
  double target_return() const;
  // The data learn() trains on (loaded by the first learn(), or by load_data()).
  const OfflineData& data();

 protected:
  void run_training(TrainingRun& run) override;  // gradient steps on windows of the dataset
  void prepare_training() override { data(); }   // loaded before the callbacks start
  std::vector<torch::Tensor> learner_parameters() override;
  YAML::Node resolved_hyperparams() const override;

 private:
  torch::Tensor predict(const torch::Tensor& states, const torch::Tensor& actions, const torch::Tensor& rtg,
                        const torch::Tensor& timesteps, const torch::Tensor& valid);
  std::int64_t action_columns() const { return discrete_ ? 1 : action_dim_; }
  torch::Tensor to_env_actions(const torch::Tensor& model_actions) const;

  ModelKind kind_;
  DtConfig cfg_;
  EnvSpec spec_;
  torch::Device device_;
  bool discrete_ = false;
  std::int64_t state_dim_ = 0, action_dim_ = 0, window_ = 1, max_ep_len_ = 1000;
  DecisionTransformer transformer_{nullptr};
  BcMlp mlp_{nullptr};
  torch::nn::Module* model_ = nullptr;
  std::unique_ptr<torch::optim::AdamW> optimizer_;
  std::unique_ptr<OfflineData> data_;
  torch::Tensor state_mean_, state_std_, action_low_, action_high_;
  double dataset_best_return_ = 0;
  Rng rng_;
  std::int64_t num_steps_ = 0;
  double last_target_ = 0;
};

void register_dt();

}  // namespace rlzoo::dt
