#include "algorithms/dqn/dqn.h"

#include <fmt/format.h>
#include <limits>

#include "algorithms/dqn/dqn_loss.h"
#include "rl/agent_checkpoint.h"
#include "rl/buffers/replay_rounds.h"
#include "rl/epsilon_greedy.h"
#include "rl/gradient_guard.h"
#include "rl/learner_device.h"
#include "rl/nets/observation.h"
#include "rl/nets/target_network.h"
#include "rl/optim/zero_gradients.h"
#include "rl/runtime/module_evaluator.h"
#include "rl/runtime/runtime_setup.h"
#include "rl/training_run.h"
#include "algorithms/dqn/dqn_actor.h"
#include "core/runtime/inline_source.h"
#include "core/torch/module_parameters.h"
#include "core/registry/env_registry.h"
#include "core/torch/device.h"
#include "core/torch/tensor_io.h"

namespace rlzoo {

namespace {
// Stream of the exploration Rng, apart from the envs' seeds (seed + i).
constexpr std::uint64_t kExplorationStream = 0x44514E;  // "DQN"
// The actor threads' exploration streams.
constexpr std::uint64_t kActorExplorationStream = 0x41504558;  // "APEX"
}  // namespace

DqnAgent::DqnAgent(const AgentSetup& setup)
    : Agent(setup),
      spec_(preset_env_spec(setup)),  // Discrete actions: checked against the capabilities
      rng_(derive_seed(static_cast<std::uint64_t>(setup.preset.seed), kExplorationStream)) {
  cfg_ = parse_config<DqnConfig>(setup.preset.hyperparams, setup.ctx.child("hyperparams"));
  device_ = learner_device(setup);
  torch::manual_seed(static_cast<std::uint64_t>(setup.preset.seed));
  // Made on the CPU, then moved: the same seed gives the same initial weights on every device.
  q_net_ = QNetwork(spec_.observation_space, spec_.action_space, cfg_.policy);
  q_target_ = QNetwork(spec_.observation_space, spec_.action_space, cfg_.policy);
  q_net_->to(device_);
  q_target_->to(device_);
  copy_module(*q_net_, *q_target_);
  q_target_->eval();
  optimizer_ =
      std::make_unique<FusedAdam>(q_net_->parameters(), torch::optim::AdamOptions(cfg_.learning_rate));
  fused_update_ = DqnFusedUpdate::make(q_net_, q_target_);
  const RuntimeConfig& rt = setup.preset.runtime;
  if (rt.enabled() && cfg_.n_envs != 1 && cfg_.n_envs != rt.total_envs())
    setup.ctx.child("hyperparams.n_envs")
        .fail(setup.preset.hyperparams["n_envs"],
              fmt::format("with runtime.actors the envs are actors x envs_per_actor = {}; leave n_envs out or set it to that",
                          rt.total_envs()));
}

std::int64_t DqnAgent::buffer_envs() const {
  const RuntimeConfig& rt = setup().preset.runtime;
  return rt.enabled() ? rt.total_envs() : cfg_.n_envs;
}

void DqnAgent::ensure_buffer() {
  if (buffer_) return;
  buffer_ = std::make_unique<ReplayBuffer>(spec_.observation_space, spec_.action_space, cfg_.buffer_size, buffer_envs());
}

YAML::Node DqnAgent::resolved_hyperparams() const { return to_yaml(cfg_); }

std::vector<torch::Tensor> DqnAgent::learner_parameters() {
  std::vector<torch::Tensor> params = q_net_->parameters();
  for (const auto& p : q_target_->parameters()) params.push_back(p);
  return params;
}

double DqnAgent::exploration_rate() const {
  return dqn_exploration_rate(cfg_, num_timesteps_, setup().preset.n_timesteps);
}

torch::Tensor DqnAgent::epsilon_greedy(const torch::Tensor& q, const torch::Tensor& masks, double eps) {
  torch::Tensor actions = q.argmax(1).to(torch::kInt64).contiguous() + spec_.action_space.start();
  torch::Tensor m = masks.defined() ? masks.to(torch::kUInt8).contiguous() : torch::Tensor();
  std::int64_t* a = actions.data_ptr<std::int64_t>();
  const std::int64_t n = spec_.action_space.n();
  for (std::int64_t i = 0; i < actions.size(0); ++i) {
    const std::int64_t e = epsilon_explore(rng_, eps, n, m.defined() ? m.data_ptr<std::uint8_t>() + i * n : nullptr);
    if (e >= 0) a[i] = spec_.action_space.start() + e;
  }
  return actions;
}

torch::Tensor DqnAgent::act(const std::vector<torch::Tensor>& obs, const ActOptions& options) {
  torch::NoGradGuard no_grad;
  torch::Tensor q = q_net_->forward(to_device(obs, device_)).cpu();
  if (options.action_mask.defined())
    q = q.masked_fill(options.action_mask.to(torch::kBool).logical_not(), -std::numeric_limits<float>::infinity());
  if (options.deterministic) return q.argmax(1).to(torch::kInt64) + spec_.action_space.start();
  return epsilon_greedy(q, options.action_mask, exploration_rate());
}

void DqnAgent::update_target() { polyak_update(*q_net_, *q_target_, cfg_.tau); }

void DqnAgent::train(std::int64_t gradient_steps, TrainingMonitor& monitor) {
  const Space& space = spec_.observation_space;
  const std::int64_t start = spec_.action_space.start();
  const auto params = q_net_->parameters();
  double loss_sum = 0, q_sum = 0;
  const bool plain = fused_update_applies();
  for (std::int64_t step = 0; step < gradient_steps; ++step) {
    // Sampled and decoded on the CPU, where the buffer lives; used on the device.
    const ReplaySample s = buffer_->sample(cfg_.batch_size, cfg_.gamma, cfg_.n_step);
    const UpdateWhere where{"DQN gradient step", n_updates_ + 1, num_timesteps_};
    DqnLossValue l;
    if (plain) {
      torch::Tensor obs, next_obs;  // the decoded rows the batch points into
      zero_gradients(*optimizer_);
      l = fused_update_->gradients(DqnFusedUpdate::rows_of(s, space, start, obs, next_obs), cfg_.double_q,
                                   cfg_.loss == "huber");
    } else {
      const torch::Tensor rewards = s.rewards.to(device_), discounts = s.discounts.to(device_),
                          terminated = s.terminated.to(device_), actions = (s.actions - start).to(device_);
      torch::Tensor target;
      {
        torch::NoGradGuard no_grad;
        const auto next = to_device(observation_tensors(space, s.next_obs), device_);
        target = dqn_targets(q_target_->forward(next), cfg_.double_q ? q_net_->forward(next) : torch::Tensor(),
                             rewards, discounts, terminated);
      }
      const DqnLoss loss = dqn_td_loss(q_net_->forward(to_device(observation_tensors(space, s.obs), device_)),
                                       actions, target, cfg_.loss == "huber");
      zero_gradients(*optimizer_);
      loss.loss.backward();
      l = {loss.value, loss.q_mean};
    }
    gradient_reducer().reduce(params);
    clip_and_check_gradients(params, cfg_.max_grad_norm, l.value, where);
    optimizer_->step();
    ++n_updates_;
    loss_sum += l.value;
    q_sum += l.q_mean;
  }
  Logger& log = monitor.logger();
  const double steps = static_cast<double>(std::max<std::int64_t>(gradient_steps, 1));
  log.record("train/loss", loss_sum / steps);
  log.record("train/q_mean", q_sum / steps);
  log.record("train/learning_rate", cfg_.learning_rate);
  log.record_excluded("train/n_updates", n_updates_, {"tensorboard"});
}

void DqnAgent::end_cycle(std::int64_t collected, bool stopped, TrainingMonitor& monitor) {
  monitor.logger().record("rollout/exploration_rate", exploration_rate());
  // SB3 does not train after a callback asked to stop.
  if (!stopped && num_timesteps_ > cfg_.learning_starts)
    train(cfg_.gradient_steps > 0 ? cfg_.gradient_steps : collected * buffer_->n_envs(), monitor);
}

bool DqnAgent::learn_from_round(const Trajectory& round, std::int64_t end, TrainingMonitor& monitor,
                                CallbackList* callbacks) {
  ensure_buffer();
  const std::int64_t n_envs = buffer_->n_envs();
  const StoredRound stored =
      store_round(*buffer_, round, end, num_timesteps_, "dqn", [&](const StepEpisodes& episodes) {
        ++n_calls_;  // the target clock counts vector steps
        if (n_calls_ % std::max<std::int64_t>(cfg_.target_update_interval / n_envs, 1) == 0) update_target();
        return monitor.after_step(*this, episodes, num_timesteps_, callbacks);
      });
  end_cycle(stored.collected, stored.stopped, monitor);
  return !stored.stopped;
}

std::shared_ptr<BatchEvaluator> DqnAgent::q_values(QNetwork q, const ModuleParameterStore* store) const {
  auto evaluator = std::make_shared<ModuleEvaluator>(
      spec_.observation_space, static_cast<std::size_t>(spec_.action_space.n()), q.ptr(),
      [q](const std::vector<torch::Tensor>& obs) mutable { return q->forward(obs); }, store);
  // An actor's few rows through the plain chain, without a tensor per layer: the same values.
  evaluator->set_row_forward([q, scratch = std::make_shared<std::vector<float>>()](const float* obs, std::int64_t rows,
                                                                                   float* out) {
    const FusedMlp* chain = q->plain_chain();
    return chain && chain->forward_rows(obs, rows, out, *scratch);
  });
  return evaluator;
}

void DqnAgent::run_training(TrainingRun& run) {
  ensure_buffer();
  const std::int64_t end = run.target();
  if (num_timesteps_ >= end) return;
  auto learn_round = [&](const Trajectory& round) {
    return learn_from_round(round, end, run.monitor(), run.callbacks()) && num_timesteps_ < end;
  };
  DqnActingSchedule schedule;
  schedule.start_timesteps = num_timesteps_;
  schedule.total_timesteps = preset().n_timesteps;
  schedule.total_envs = buffer_->n_envs();

  if (run.backend() == Backend::inline_loop) {
    // The learner's thread is the one actor: acting reads q_net_ itself and draws from rng_;
    // a round is a train_freq cycle, cut short at the step target.
    if (!venv_) {
      venv_ = make_vector_env(preset().env, cfg_.n_envs, 1, preset().env_kwargs);
      venv_->reset(static_cast<std::uint64_t>(preset().seed));
    }
    schedule.shared_stream = &rng_;
    DqnActorPolicy policy(q_values(q_net_, nullptr), spec_.action_space, cfg_, schedule);
    const std::int64_t n_envs = venv_->num_envs();
    InlineSourceOptions options;
    options.steps_per_round = cfg_.train_freq;
    options.round_steps = [&] { return std::min(cfg_.train_freq, (end - num_timesteps_ + n_envs - 1) / n_envs); };
    InlineTrajectorySource source(*venv_, policy, std::move(options));
    return run_inline_training(*this, run, source, learn_round);
  }

  // Actor threads, Ape-X style: each actor explores with its own epsilon and per-env streams.
  ModuleParameterStore store;  // declared before the fleet: the actors use it until it has joined
  store.publish(snapshot_module(*q_net_));  // replicas start from the learner's weights
  schedule.actors = preset().runtime.actors;
  schedule.seed = derive_seed(static_cast<std::uint64_t>(preset().seed) + static_cast<std::uint64_t>(num_timesteps_),
                              kActorExplorationStream);
  ActorThreadsSetup actors;
  actors.steps_per_trajectory = cfg_.train_freq;
  actors.make_replica = [&] {
    return q_values(keeping_torch_rng([&] { return QNetwork(spec_.observation_space, spec_.action_space, cfg_.policy); }),
                    &store);
  };
  actors.make_policy = [&](std::shared_ptr<BatchEvaluator> evaluator, int actor) -> std::unique_ptr<ActorPolicy> {
    DqnActingSchedule s = schedule;
    s.actor = actor;
    return std::make_unique<DqnActorPolicy>(std::move(evaluator), spec_.action_space, cfg_, s);
  };
  run_threads_training(*this, run, store, actors, [&](const Trajectory& round) {
    const bool go_on = learn_round(round);
    store.publish(snapshot_module(*q_net_));
    return go_on;
  });
}

CheckpointWriter DqnAgent::checkpoint() const {
  CheckpointWriter w = agent_checkpoint_writer(*this);
  w.add("q_net.pt", save_module(*q_net_));
  w.add("q_target.pt", save_module(*q_target_));
  w.add("optimizer.pt", save_optimizer(*optimizer_));
  w.add_json("state.json", nlohmann::json{{"num_timesteps", num_timesteps_},
                                          {"n_calls", n_calls_},
                                          {"n_updates", n_updates_},
                                          {"exploration_rng", rng_.state()}});
  if (buffer_ && setup().preset.checkpoint.save_replay_buffer) buffer_->save(w, "replay_buffer.pt");
  add_training_envs(w, venv_.get());
  return w;
}

void DqnAgent::restore(const CheckpointReader& reader) {
  load_module(*q_net_, reader, "q_net.pt");
  load_module(*q_target_, reader, "q_target.pt");
  load_optimizer(*optimizer_, reader, "optimizer.pt");
  load_generator_state(reader, "torch_rng");
  const auto state = reader.read_json("state.json");
  try {
    num_timesteps_ = state.at("num_timesteps").get<std::int64_t>();
    n_calls_ = state.at("n_calls").get<std::int64_t>();
    n_updates_ = state.at("n_updates").get<std::int64_t>();
    rng_.set_state(state.at("exploration_rng").get<std::string>());
  } catch (const nlohmann::json::exception& e) {
    throw UserError(fmt::format("{}: bad DQN state: {}", (reader.dir() / "state.json").string(), e.what()));
  }
  if (reader.has("replay_buffer.pt")) {
    ensure_buffer();
    buffer_->load(reader, "replay_buffer.pt");
  }
  // Runtime actors make their envs when learn() starts (reset from seed + num_timesteps).
  if (setup().preset.runtime.enabled()) return;
  // Without saved env states the envs restart from a seed that depends on the progress; the
  // replay buffer then ends its stored streams there (see ReplayBuffer::add).
  venv_ = make_vector_env(setup().preset.env, cfg_.n_envs, 1, setup().preset.env_kwargs);
  restore_training_envs(*venv_, reader,
                        static_cast<std::uint64_t>(setup().preset.seed) + static_cast<std::uint64_t>(num_timesteps_));
}

std::optional<PolicyExport> DqnAgent::export_policy() const {
  PolicyExport e = policy_export_of(PolicyExport::Network::q_network, spec_.observation_space, spec_.action_space,
                                    cfg_.policy, *q_net_);
  e.discrete_action_offset = spec_.action_space.start();
  return e;
}

void register_dqn() {
  AlgorithmCapabilities caps;
  caps.observation_spaces = {SpaceKind::Box, SpaceKind::Discrete, SpaceKind::MultiDiscrete, SpaceKind::MultiBinary, SpaceKind::Dict};  // the shared encoders
  caps.action_spaces = {SpaceKind::Discrete};
  caps.learning = LearningKind::off_policy;
  caps.backends = {Backend::inline_loop, Backend::threads};
  caps.several_learners = true;
  caps.gpu = true;
  caps.exportable = true;
  register_algorithm("dqn", algorithm_entry<DqnAgent, DqnConfig>(
                                "Deep Q-Network (Discrete actions; options: double Q, dueling head, n-step returns)",
                                caps));
}

}  // namespace rlzoo
