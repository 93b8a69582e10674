#include "algorithms/dqn/dqn.h"

#include <cstring>
#include <fmt/format.h>
#include <limits>

#include "agents/agent_checkpoint.h"
#include "agents/epsilon_greedy.h"
#include "agents/gradient_guard.h"
#include "agents/learner_device.h"
#include "agents/nets/observation.h"
#include "agents/training_run.h"
#include "core/registry/env_registry.h"
#include "core/torch/device.h"
#include "core/torch/tensor_io.h"

namespace rlzoo {

namespace {
// Stream of the exploration Rng, apart from the envs' seeds (seed + i).
constexpr std::uint64_t kExplorationStream = 0x44514E;  // "DQN"

EnvSpec probe_spec(const AgentSetup& setup) {
  EnvSpec spec = preset_env_spec(setup);
  try {
    require_discrete_actions(spec.action_space, "dqn", spec.id);
  } catch (const UserError& e) {
    setup.ctx.child("env").fail(YAML::Mark::null_mark(), e.what());
  }
  return spec;
}
}  // namespace

DqnAgent::DqnAgent(const AgentSetup& setup)
    : Agent(setup),
      spec_(probe_spec(setup)),
      rng_(derive_seed(static_cast<std::uint64_t>(setup.preset.seed), kExplorationStream)) {
  cfg_ = parse_config<DqnConfig>(setup.preset.hyperparams, setup.ctx.child("hyperparams"));
  device_ = learner_device(setup);
  torch::manual_seed(static_cast<std::uint64_t>(setup.preset.seed));
  // Made on the CPU, then moved: the same seed gives the same initial weights on every device.
  q_net_ = QNetwork(spec_.observation_space, spec_.action_space, cfg_.policy);
  q_target_ = QNetwork(spec_.observation_space, spec_.action_space, cfg_.policy);
  q_net_->to(device_);
  q_target_->to(device_);
  {
    torch::NoGradGuard no_grad;
    const auto src = q_net_->parameters();
    const auto dst = q_target_->parameters();
    for (std::size_t i = 0; i < src.size(); ++i) dst[i].copy_(src[i]);
  }
  q_target_->eval();
  optimizer_ =
      std::make_unique<torch::optim::Adam>(q_net_->parameters(), torch::optim::AdamOptions(cfg_.learning_rate));
  actions_.resize(static_cast<std::size_t>(cfg_.n_envs));
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

void DqnAgent::choose_actions(bool uniformly_random) {
  // One coin per env; the Q network runs only when some env acts greedily.
  const std::int64_t n_envs = venv_->num_envs(), n = spec_.action_space.n();
  const auto masks = venv_->action_masks();
  const double eps = uniformly_random ? 1.0 : exploration_rate();
  bool any_greedy = false;
  for (std::int64_t e = 0; e < n_envs; ++e) {
    const std::int64_t a = epsilon_explore(rng_, eps, n, masks.empty() ? nullptr : masks.data() + e * n);
    actions_[static_cast<std::size_t>(e)] = a >= 0 ? spec_.action_space.start() + a : std::numeric_limits<std::int64_t>::min();
    any_greedy = any_greedy || a < 0;
  }
  if (!any_greedy) return;
  torch::NoGradGuard no_grad;
  torch::Tensor q =
      q_net_->forward(to_device(observation_tensors(spec_.observation_space, venv_->observation_bytes().data(), n_envs),
                                device_))
          .cpu();
  if (!masks.empty()) {
    const auto legal = torch::from_blob(const_cast<std::uint8_t*>(masks.data()), {n_envs, n}, torch::kUInt8);
    q = q.masked_fill(legal.logical_not(), -std::numeric_limits<float>::infinity());
  }
  const torch::Tensor greedy = q.argmax(1).to(torch::kInt64).contiguous();
  const std::int64_t* g = greedy.data_ptr<std::int64_t>();
  for (std::int64_t e = 0; e < n_envs; ++e)
    if (actions_[static_cast<std::size_t>(e)] == std::numeric_limits<std::int64_t>::min())
      actions_[static_cast<std::size_t>(e)] = g[e] + spec_.action_space.start();
}

void DqnAgent::update_target() {
  torch::NoGradGuard no_grad;
  const auto src = q_net_->parameters();
  const auto dst = q_target_->parameters();
  for (std::size_t i = 0; i < src.size(); ++i) {
    if (cfg_.tau >= 1.0)
      dst[i].copy_(src[i]);
    else
      dst[i].mul_(1.0 - cfg_.tau).add_(src[i], cfg_.tau);
  }
  // Buffers (none in our MLPs and CNNs today) are statistics, not weights: copied as SB3 does.
  const auto sb = q_net_->buffers();
  const auto db = q_target_->buffers();
  for (std::size_t i = 0; i < sb.size(); ++i) db[i].copy_(sb[i]);
}

void DqnAgent::train(std::int64_t gradient_steps, TrainingMonitor& monitor) {
  const Space& space = spec_.observation_space;
  const std::int64_t start = spec_.action_space.start();
  const auto params = q_net_->parameters();
  torch::Tensor loss_sum = torch::zeros({}, device_), q_sum = torch::zeros({}, device_);
  for (std::int64_t step = 0; step < gradient_steps; ++step) {
    // Sampled and decoded on the CPU, where the buffer lives; used on the device.
    const ReplaySample s = buffer_->sample(cfg_.batch_size, cfg_.gamma, cfg_.n_step);
    const torch::Tensor rewards = s.rewards.to(device_), discounts = s.discounts.to(device_),
                        terminated = s.terminated.to(device_), actions = (s.actions - start).to(device_);
    torch::Tensor target;
    {
      torch::NoGradGuard no_grad;
      const auto next = to_device(observation_tensors(space, s.next_obs), device_);
      const torch::Tensor next_q = q_target_->forward(next);
      torch::Tensor next_v;
      if (cfg_.double_q)
        next_v = next_q.gather(1, q_net_->forward(next).argmax(1, /*keepdim=*/true)).squeeze(1);
      else
        next_v = std::get<0>(next_q.max(1));
      // Time-outs are not terminal: `terminated` is 0 there and the bootstrap stays.
      target = rewards + discounts * (1.0f - terminated) * next_v;
    }
    const torch::Tensor q =
        q_net_->forward(to_device(observation_tensors(space, s.obs), device_)).gather(1, actions.unsqueeze(1)).squeeze(1);
    const torch::Tensor loss = cfg_.loss == "huber" ? torch::smooth_l1_loss(q, target) : torch::mse_loss(q, target);
    optimizer_->zero_grad();
    loss.backward();
    gradient_reducer().reduce(params);
    clip_and_check_gradients(params, cfg_.max_grad_norm, loss, {"DQN gradient step", n_updates_ + 1, num_timesteps_});
    optimizer_->step();
    ++n_updates_;
    loss_sum += loss.detach();
    q_sum += q.detach().mean();
  }
  Logger& log = monitor.logger();
  const double steps = static_cast<double>(std::max<std::int64_t>(gradient_steps, 1));
  log.record("train/loss", loss_sum.item<double>() / steps);
  log.record("train/q_mean", q_sum.item<double>() / steps);
  log.record("train/learning_rate", cfg_.learning_rate);
  log.record_excluded("train/n_updates", n_updates_, {"tensorboard"});
}

bool DqnAgent::observe_step(ConstBytes obs, ConstBytes actions, std::span<const double> rewards,
                            const StepEpisodes& episodes, ConstBytes next_obs, ConstBytes final_obs,
                            TrainingMonitor& monitor, CallbackList* callbacks) {
  const std::int64_t n_envs = buffer_->n_envs();
  buffer_->add(obs, actions, rewards, episodes.terminated, episodes.truncated, next_obs, final_obs);
  num_timesteps_ += n_envs;
  ++n_calls_;
  if (n_calls_ % std::max<std::int64_t>(cfg_.target_update_interval / n_envs, 1) == 0) update_target();
  return monitor.after_step(*this, episodes, num_timesteps_, callbacks);
}

void DqnAgent::end_cycle(std::int64_t collected, bool stopped, TrainingMonitor& monitor) {
  monitor.logger().record("rollout/exploration_rate", exploration_rate());
  // SB3 does not train after a callback asked to stop.
  if (!stopped && num_timesteps_ > cfg_.learning_starts)
    train(cfg_.gradient_steps > 0 ? cfg_.gradient_steps : collected * buffer_->n_envs(), monitor);
}

void DqnAgent::run_training(TrainingRun& run) {
  if (run.backend() == Backend::threads) return learn_parallel(run);
  if (!venv_) {
    venv_ = make_vector_env(setup().preset.env, cfg_.n_envs, 1, setup().preset.env_kwargs);
    venv_->reset(static_cast<std::uint64_t>(setup().preset.seed));
  }
  ensure_buffer();
  const std::int64_t end = run.target();
  CallbackList* callbacks = run.callbacks();
  TrainingMonitor& monitor = run.monitor();
  const ConstBytes actions(reinterpret_cast<const std::byte*>(actions_.data()), actions_.size() * sizeof(std::int64_t));
  std::vector<std::byte> obs(venv_->observation_bytes().size());
  bool stop = false;
  while (num_timesteps_ < end && !stop) {
    std::int64_t collected = 0;
    while (collected < cfg_.train_freq && num_timesteps_ < end && !stop) {
      // Before learning_starts actions are uniformly random (SB3).
      choose_actions(num_timesteps_ < cfg_.learning_starts);
      std::memcpy(obs.data(), venv_->observation_bytes().data(), obs.size());
      venv_->step(actions);
      ++collected;
      const StepEpisodes episodes{venv_->terminated(), venv_->truncated(), venv_->episode_returns(),
                                  venv_->episode_lengths()};
      if (!observe_step(obs, actions, venv_->rewards(), episodes, venv_->observation_bytes(),
                        venv_->final_observation_bytes(), monitor, callbacks))
        stop = true;
    }
    end_cycle(collected, stop, monitor);
    run.end_cycle(num_timesteps_);  // the cycle is complete here: a checkpoint taken now resumes exactly
  }
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
