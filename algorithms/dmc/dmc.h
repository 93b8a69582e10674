// Deep Monte-Carlo with action encoding (DouZero, Zha et al. 2021) for DouDizhu-v0.
//
// Three Q-networks (landlord, landlord_down, landlord_up; douzero_net.h) score (state, action)
// pairs. Actor threads (dmc_actor.h) play many concurrent self-play games, epsilon-greedy
// over the legal moves, their decisions evaluated in batches, either by one shared inference
// server (preset `runtime.inference.max_batch > 0`: one forward pass per seat over the rows of
// all actors) or by each actor's replica of the networks. Every finished game's frames go to
// the learner with their Monte-Carlo target (the game's final return for the seat that acted).
// The learner trains a seat whenever B x T (32 x 100) of its frames are waiting: MSE to the
// targets, RMSprop (lr 1e-4, alpha 0.99, eps 1e-5), gradient norm clipped at 40, then publishes
// the seat's weights to the actors. num_timesteps() counts trained frames, as DouZero does.
//
// act() picks among the candidate moves given in ActOptions (candidate_features, acting_agent:
// what the DouDizhu env exposes), greedily or epsilon-greedily; whole games are easier through
// dmc::DmcPlayer (player()). evaluate(n) plays n deals in both roles against the random player.
// With several learners (--learners N) every rank starts from rank 0's nets, and after each game
// the ranks agree on the batches every seat has on all of them (GradientReducer::minimum) and
// train those in seat order, so that their gradient all-reduces match.
#pragma once

#include <memory>

#include "core/common/rng.h"

#include "rl/agent.h"
#include "rl/algorithm_registry.h"
#include "algorithms/dmc/dmc_actor.h"
#include "algorithms/dmc/dmc_config.h"
#include "algorithms/dmc/seat_nets.h"
#include "envs/doudizhu/player.h"

namespace rlzoo {
class TrainingMonitor;
}

namespace rlzoo::dmc {

class DmcAgent : public Agent {
 public:
  explicit DmcAgent(const AgentSetup& setup);

  std::string algorithm() const override { return "dmc"; }
  const EnvSpec& env_spec() const override { return spec_; }
  std::int64_t num_timesteps() const override { return frames_; }
  torch::Tensor act(const std::vector<torch::Tensor>& obs, const ActOptions& options = {}) override;
  EvalResult evaluate(int episodes, bool deterministic = true, std::uint64_t seed = 1'000'000,
                      const EvalObserver& observer = {}) override;
  CheckpointWriter checkpoint() const override;
  void restore(const CheckpointReader& reader);

  const DmcConfig& hyperparams() const { return cfg_; }
  SeatNets& nets() { return *nets_; }
  // Where the networks, optimiser state and training batches live (the preset's `device`).
  const torch::Device& device() const { return device_; }
  std::shared_ptr<SeatNets> shared_nets() { return nets_; }
  // A greedy player with these networks (shares them: later training shows in its moves).
  std::unique_ptr<doudizhu::Player> player();
  std::int64_t games_played() const { return games_; }

  // One learner step for `seat` on frames [0, B x T) of `frames`: returns the loss.
  double train_step(doudizhu::Seat seat, const SeatFrames& frames);

 protected:
  void run_training(TrainingRun& run) override;                // actor threads play, this thread learns
  std::vector<torch::Tensor> learner_parameters() override;  // the three seats' networks
  YAML::Node resolved_hyperparams() const override;

 private:
  void evaluate_against_baselines(TrainingMonitor& monitor);

  DmcConfig cfg_;
  EnvSpec spec_;
  torch::Device device_ = torch::kCPU;
  std::shared_ptr<SeatNets> nets_;
  std::array<std::unique_ptr<torch::optim::RMSprop>, 3> optimizers_;
  std::int64_t frames_ = 0;
  std::int64_t games_ = 0;
  std::int64_t next_eval_ = 0;
  Rng act_rng_;  // act()'s exploration when not deterministic
};

void register_dmc();

}  // namespace rlzoo::dmc
