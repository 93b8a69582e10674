// A toy algorithm compiled into the tests only: REINFORCE (Williams 1992) with returns-to-go
// normalised per batch, for Discrete actions on a flat Box observation. It is what a new
// algorithm needs, and no more: these two files register it through the public path
// (register_algorithm + algorithm_entry), and check_algorithm then checks it like the built-in
// ones (tests/algorithms/toy_reinforce_test.cpp).
//
// Three deliberately broken variants share the code, each registered under its own id, to show
// that check_algorithm fails them by name:
//   toy_reinforce_forgets_optimizer  does not save Adam's state       -> exact_resume
//   toy_reinforce_inline_on_threads  declares threads, acts inline    -> learn[threads]
//   toy_reinforce_random_act         samples in deterministic act()   -> deterministic_act
#pragma once

#include <memory>

#include "rl/agent.h"
#include "rl/algorithm_registry.h"
#include "core/vector/vector_env.h"

namespace rlzoo::toy {

struct ReinforceConfig {
  double learning_rate = 0.01;
  int hidden = 32;
  std::int64_t batch_steps = 64;  // env steps per update
  double gamma = 0.99;
  static void describe(Fields<ReinforceConfig>& f) {
    f("learning_rate", &ReinforceConfig::learning_rate, "Adam step size", Bound::positive());
    f("hidden", &ReinforceConfig::hidden, "units of the policy's hidden layer", Bound::at_least(1));
    f("batch_steps", &ReinforceConfig::batch_steps, "env steps per update", Bound::at_least(1));
    f("gamma", &ReinforceConfig::gamma, "discount factor", Bound::unit());
  }
};

enum class Flaw { none, forgets_optimizer, inline_on_threads, random_deterministic_act };

class ReinforceAgent : public Agent {
 public:
  ReinforceAgent(const AgentSetup& setup, Flaw flaw);

  std::string algorithm() const override;
  const EnvSpec& env_spec() const override { return spec_; }
  std::int64_t num_timesteps() const override { return num_timesteps_; }
  torch::Tensor act(const std::vector<torch::Tensor>& obs, const ActOptions& options = {}) override;
  CheckpointWriter checkpoint() const override;
  void restore(const CheckpointReader& reader);

 protected:
  void run_training(TrainingRun& run) override;
  std::vector<torch::Tensor> learner_parameters() override { return policy_->parameters(); }
  YAML::Node resolved_hyperparams() const override { return to_yaml(cfg_); }

 private:
  torch::Tensor logits(const torch::Tensor& obs) { return policy_->forward(obs.to(torch::kFloat32).flatten(1)); }

  Flaw flaw_;
  ReinforceConfig cfg_;
  EnvSpec spec_;
  torch::nn::Sequential policy_{nullptr};
  std::unique_ptr<torch::optim::Adam> optimizer_;
  std::unique_ptr<VectorEnv> venv_;
  std::int64_t num_timesteps_ = 0;
};

// Registers toy_reinforce and its three broken variants (once per process).
void register_toy_algorithms();

}  // namespace rlzoo::toy
