// GPOMDP, SVRPG, SRVR-PG and STORM-PG: one agent whose only difference between the four is the
// gradient estimator (gpomdp.h), fed to Adam as the (negated) gradient.
//
//  * gpomdp:   g_t = mean d(tau; theta_t) over B fresh trajectories.
//  * svrpg:    every m iterations a snapshot theta~ with mu = mean d over N trajectories;
//              in between g_t = mu + mean d(tau; theta_t) - mean d~(tau; theta~ | theta_t).
//  * srvrpg:   every m iterations v = mean d over N; in between
//              v_t = v_{t-1} + mean d(tau; theta_t) - mean d~(tau; theta_{t-1} | theta_t).
//  * storm_pg: g_0 = mean d over S0 trajectories, then only mini-batches of B:
//              g_t = mean d(tau; theta_t) + (1 - alpha)(g_{t-1} - mean d~(tau; theta_{t-1} | theta_t)).
// Importance weights are per decision, cumulative, in float64 (optionally clipped). Each
// iteration appends (trajectories so far, mean return of its batch, weight mean and max,
// estimate norm, learning rate) to <log_dir>/curve.csv; max_trajectories stops a run at an
// exact trajectory budget. Checkpoints hold everything (policies, estimates, Adam, RNGs), so a
// resumed run continues exactly.
#pragma once

#include <memory>

#include "rl/agent.h"
#include "rl/algorithm_registry.h"
#include "algorithms/pg/gpomdp.h"
#include "algorithms/pg/pg_config.h"

namespace rlzoo {
class TrainingMonitor;
}

namespace rlzoo::pg {

enum class Estimator { Gpomdp, Svrpg, SrvrPg, StormPg };

class PgAgent : public Agent {
 public:
  PgAgent(const AgentSetup& setup, Estimator estimator);

  std::string algorithm() const override;
  const EnvSpec& env_spec() const override { return spec_; }
  std::int64_t num_timesteps() const override { return num_timesteps_; }
  torch::Tensor act(const std::vector<torch::Tensor>& obs, const ActOptions& options = {}) override;
  // The MLP policy (PolicyExport::Network::mlp_policy).
  std::optional<PolicyExport> export_policy() const override;
  CheckpointWriter checkpoint() const override;
  void restore(const CheckpointReader& reader);

  const PgConfig& hyperparams() const { return cfg_; }
  PgPolicyImpl& policy() { return *policy_; }
  std::int64_t trajectories() const { return trajectories_; }
  std::int64_t iterations() const { return iteration_; }
  // The estimate of the last iteration (the direction Adam was given), flat float64.
  const torch::Tensor& estimate() const { return g_; }

  // One iteration: sample, estimate, step. Public for tests.
  void iterate(TrainingMonitor* monitor = nullptr);

 protected:
  void run_training(TrainingRun& run) override;
  YAML::Node resolved_hyperparams() const override;

 private:
  std::int64_t horizon() const;
  PgPolicy make_policy() const;
  // An iteration's n trajectories: inline, or with sampling_actors_ > 0 split over that many
  // actor threads, each with a replica of the current policy and its share of the reset seeds
  // (drawn here in the inline order).
  TrajectoryBatch sample(std::int64_t n);
  // Gives Adam -g at this iteration's decayed learning rate; returns that rate.
  double adam_step(const torch::Tensor& g);

  Estimator estimator_;
  PgConfig cfg_;
  EnvSpec spec_;
  Baseline baseline_;
  PgPolicy policy_{nullptr}, previous_{nullptr}, snapshot_{nullptr};
  std::unique_ptr<torch::optim::Adam> optimizer_;
  std::vector<std::unique_ptr<Env>> envs_;
  int sampling_actors_ = 0;  // set by run_training() on the threads backend
  std::vector<PgPolicy> replicas_;
  std::vector<std::vector<std::unique_ptr<Env>>> actor_envs_;
  Rng seeds_;
  torch::Tensor g_, mu_;
  std::vector<double> last_batch_returns_;
  std::vector<std::int64_t> last_batch_lengths_;
  std::int64_t num_timesteps_ = 0, trajectories_ = 0, iteration_ = 0;
};

void register_pg();

}  // namespace rlzoo::pg
