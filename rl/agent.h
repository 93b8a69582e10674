// The high-level agent API.
//
//   auto agent = rlzoo::make_agent("ppo", "CartPole-v1", overrides);   // or Agent::from_preset(path)
//   agent->learn(100'000);                 // continues from num_timesteps() when called again
//   auto actions = agent->act(obs);         // batch of raw observations -> actions
//   auto score = agent->evaluate(20);       // deterministic episodes on a fresh env
//   agent->save("runs/cartpole/final");     // everything needed to act or to continue training
//   auto again = rlzoo::load_agent("runs/cartpole/final");
//
// Algorithms implement Agent and register themselves, with their capabilities, in the algorithm
// registry (rl/algorithm_registry.h); rl/ never includes algorithms/. learn() is the
// training driver (rl/training_driver.cpp), the same for every algorithm, the way Env::step
// is for every env: it checks the request, sets the threads, broadcasts the learners'
// parameters, runs the monitor and calls the callbacks in their order, around the algorithm's
// run_training().
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>
#include <yaml-cpp/yaml.h>

#include "rl/callbacks.h"
#include "rl/algorithm_capabilities.h"
#include "rl/export/policy_export.h"
#include "rl/preset.h"
#include "rl/runtime/fleet_role.h"
#include "core/checkpoint/writer.h"
#include "core/config/context.h"
#include "core/env/env.h"
#include "core/torch/gradient_reducer.h"
#include "core/torch/tensor.h"

namespace rlzoo {

// Per-call extras for act(). Unset tensors are simply absent.
class Logger;
class TrainingRun;

// Every member has an initialiser, so `ActOptions{.deterministic = false}` names only what it sets
// (without, GCC's -Wextra warns of each member left out).
struct ActOptions {
  bool deterministic = true;
  torch::Tensor action_mask{};      // [B, n] bool: legal actions (Discrete)
  torch::Tensor recurrent_state{};  // recurrent policies: act_with_state()'s state from the previous call
  torch::Tensor episode_start{};    // [B] bool: the observation starts an episode
  torch::Tensor target_return{};    // [B] return-conditioned policies (Decision Transformer)
  // Envs with candidate actions (EnvSpec::candidate_feature_dim > 0, e.g. DouDizhu): the acting
  // agent's legal moves as feature rows [B, K, F] (Env::candidates()), how many rows of each
  // observation are real [B] int64 (all K when undefined), and which agent acts [B] int64
  // (info().acting_agent). The action is then an index into that observation's candidates.
  torch::Tensor candidate_features{};
  torch::Tensor candidate_counts{};
  torch::Tensor acting_agent{};
};

// act_with_state()'s answer.
struct ActResult {
  torch::Tensor actions;          // as act() returns them
  torch::Tensor recurrent_state;  // recurrent policies: the state after these observations; else undefined
};

struct EvalResult {
  std::vector<double> returns;
  std::vector<std::int64_t> lengths;
  double mean_return() const;
  double std_return() const;
  double mean_length() const;
};

class Agent {
 public:
  virtual ~Agent() = default;

  // A validated preset file -> a fresh agent. Overrides are "key.path=value" strings.
  static std::unique_ptr<Agent> from_preset(const std::string& path, const std::vector<std::string>& overrides = {});

  virtual std::string algorithm() const = 0;
  virtual const EnvSpec& env_spec() const = 0;
  // The validated preset the agent was made from (typed; `hyperparams` is the algorithm's own
  // YAML, which its config struct validated).
  const PresetConfig& preset() const { return setup_.preset; }
  const AgentSetup& setup() const { return setup_; }
  // The resolved preset (every default filled in, hyperparams included), as saved with the agent.
  YAML::Node config() const;
  // What the algorithm declared when it registered.
  const AlgorithmCapabilities& capabilities() const;
  // What the last learn() call ran on: its backend, and how many batches of experience actors
  // delivered (rounds of trajectories, finished games; 0 on the inline backend).
  struct TrainingSummary {
    Backend backend = Backend::inline_loop;
    std::int64_t actor_batches = 0;
  };
  const TrainingSummary& last_training() const { return last_training_; }

  // Trains until num_timesteps() has grown by `timesteps` (env steps, or what
  // capabilities().progress_unit says) or a callback or SIGINT/SIGTERM stops it, in this order:
  // the request checked (timesteps >= 1; the backend and the learner group against the
  // capabilities), torch/BLAS threads set, rank 0's learner_parameters() broadcast,
  // prepare_training(), the TrainingMonitor started, callbacks' on_training_start,
  // run_training(), the monitor's last dump, callbacks' on_training_end.
  void learn(std::int64_t timesteps, CallbackList* callbacks = nullptr);
  virtual std::int64_t num_timesteps() const = 0;
  // Episodes finished in training so far, across learn() calls and resumes (saved with the
  // agent; learners count them through rl/training_monitor.h).
  std::int64_t num_episodes() const { return num_episodes_; }
  void set_num_episodes(std::int64_t n) { num_episodes_ = n; }
  // The preset's n_timesteps: the length of training it asks for (`rlzoo train` uses it).
  std::int64_t preset_timesteps() const { return preset().n_timesteps; }

  // Actions for a batch of raw (unnormalised) observations, one tensor per observation field
  // ([B, ...] each; see rl/nets/observation.h). Returns [B] int64 for Discrete actions or
  // [B, d] float32 clipped to the bounds for Box actions. Normaliser statistics are not updated.
  virtual torch::Tensor act(const std::vector<torch::Tensor>& obs, const ActOptions& options = {}) = 0;
  torch::Tensor act(const torch::Tensor& obs, const ActOptions& options = {}) { return act(std::vector{obs}, options); }
  // Convenience: one observation in the observation space's memory layout.
  torch::Tensor act_one(ConstBytes observation, const ActOptions& options = {});
  // act() that also returns the recurrent state after the observations (SB3's predict(obs,
  // state, episode_start)). Recurrent policies start from options.recurrent_state (undefined:
  // the state at an episode start) and reset it for the rows where options.episode_start is
  // set; pass the returned state with the same envs' next observations. Feed-forward agents
  // return act()'s actions and no state (this default).
  virtual ActResult act_with_state(const std::vector<torch::Tensor>& obs, const ActOptions& options = {});
  // True when act() depends on a recurrent state (then act() alone starts every call afresh).
  virtual bool recurrent() const { return false; }

  // Called by evaluate() after each reset (step 0) and each step (1, 2, ...) with the env, for
  // recording frames or statistics.
  using EvalObserver = std::function<void(const Env& env, int episode, std::int64_t step)>;
  // Runs `episodes` episodes on a fresh env (made as in training, seeded from `seed`) and
  // returns their returns and lengths. A recurrent policy's state is carried from step to step
  // and starts afresh with each episode.
  virtual EvalResult evaluate(int episodes, bool deterministic = true, std::uint64_t seed = 1'000'000,
                              const EvalObserver& observer = {});
  // Figures besides the returns that the last evaluate() measured (name, value), e.g. SeCBAD's
  // segment-length accuracy; written next to the returns by EvalCallback and `rlzoo eval`.
  virtual std::vector<std::pair<std::string, double>> eval_metrics() const { return {}; }

  // Everything needed to act or to continue training, as checkpoint blobs: start from
  // agent_checkpoint_writer(*this) (rl/agent_checkpoint.h), then add the algorithm's state.
  virtual CheckpointWriter checkpoint() const = 0;
  // Writes checkpoint() into `dir` atomically (an existing dir is replaced).
  void save(const std::string& dir) const;

  // Where learn() writes CSV and TensorBoard logs ("" : console only), and whether it shows a
  // progress bar. Learners report through rl/training_monitor.h.
  void set_log_dir(std::string dir) { log_dir_ = std::move(dir); }
  const std::string& log_dir() const { return log_dir_; }
  void set_progress_bar(bool on) { progress_bar_ = on; }
  bool progress_bar() const { return progress_bar_; }
  // The logger of the learn() call in progress (its TrainingMonitor's; null outside learn()),
  // for callbacks that report figures of their own, as EvalCallback does with eval/*.
  Logger* training_logger() const { return training_logger_; }
  void set_training_logger(Logger* logger) { training_logger_ = logger; }

  // The deterministic policy as the exporters rebuild it (rl/export/, `rlzoo export`):
  // nothing for algorithms whose acting network has no exporter (their registry entry then
  // says exportable = false).
  virtual std::optional<PolicyExport> export_policy() const { return std::nullopt; }

  // The acting half for actor processes of a distributed fleet (rl/runtime/fleet_role.h);
  // nothing for algorithms that have none.
  virtual std::optional<ActorRole> actor_role() { return std::nullopt; }
  // Where learn() takes its trajectories from when set: a fleet of actor processes
  // (distributed/) instead of local envs or actor threads. Only algorithms with an
  // actor_role() use it (`rlzoo learner` refuses the others).
  void set_remote_fleet(std::shared_ptr<RemoteFleet> fleet) { remote_fleet_ = std::move(fleet); }
  RemoteFleet* remote_fleet() const { return remote_fleet_.get(); }

  // Called by learners between backward() and the optimiser step (core/torch/gradient_reducer.h):
  // a no-op by default; the distributed runtime installs an all-reduce across learners.
  void set_gradient_reducer(std::shared_ptr<GradientReducer> reducer) { reducer_ = std::move(reducer); }
  GradientReducer& gradient_reducer() const { return *reducer_; }

 protected:
  explicit Agent(AgentSetup setup) : setup_(std::move(setup)) {}

  // The algorithm's half of learn(): collect experience from run.backend() and update until
  // num_timesteps() reaches run.target(), run.after_step() asks to stop, or (on actor
  // backends) the round loop ends. Report env steps through run.after_step() and the end of
  // each collect-and-update cycle, where a checkpoint resumes exactly, through run.end_cycle().
  virtual void run_training(TrainingRun& run) = 0;
  // Called by learn() before the monitor and the callbacks start: what must exist before the
  // first callback sees the agent (an offline algorithm's dataset). Nothing by default.
  virtual void prepare_training() {}
  // The tensors every learner of a group must start from identically (rank 0's are broadcast
  // by learn()): the networks the algorithm updates, target networks included.
  virtual std::vector<torch::Tensor> learner_parameters() { return {}; }
  // The hyperparameters with every default filled in (to_yaml of the algorithm's config).
  virtual YAML::Node resolved_hyperparams() const = 0;
  // The torch/BLAS threads learn() uses, for work outside it that should run alike (an
  // algorithm's own evaluate()).
  void use_learner_threads() const;

 private:
  AgentSetup setup_;
  TrainingSummary last_training_;
  std::shared_ptr<GradientReducer> reducer_ = local_gradient_reducer();
  std::shared_ptr<RemoteFleet> remote_fleet_;
  std::string log_dir_;
  bool progress_bar_ = true;
  Logger* training_logger_ = nullptr;
  std::int64_t num_episodes_ = 0;
};

// Makes an agent for `env_id` with the algorithm's defaults, then `overrides` applied
// ("hyperparams.learning_rate=0.001", "n_timesteps=1e5", ...).
std::unique_ptr<Agent> make_agent(const std::string& algorithm, const std::string& env_id,
                                  const std::vector<std::string>& overrides = {});
// An agent from a preset already loaded as YAML (source names it in errors).
std::unique_ptr<Agent> make_agent_from_yaml(YAML::Node preset, const ConfigContext& ctx);
// Restores an agent saved with Agent::save (or a run's checkpoint directory). `overrides` change
// the saved preset first ("hyperparams.likelihood_std=0.3" to evaluate with other inference
// settings); ones that change the networks' shapes fail when the parameters are loaded.
std::unique_ptr<Agent> load_agent(const std::string& dir, const std::vector<std::string>& overrides = {});

}  // namespace rlzoo
