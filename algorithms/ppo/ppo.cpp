#include "algorithms/ppo/ppo.h"

#include <fmt/format.h>

#include <algorithm>
#include <span>

#include "rl/agent_checkpoint.h"
#include "rl/learner_device.h"
#include "rl/nets/observation.h"
#include "rl/training_run.h"
#include "algorithms/ppo/ppo_loss.h"
#include "core/runtime/trajectory.h"
#include "core/registry/env_registry.h"
#include "core/torch/device.h"
#include "core/torch/tensor_io.h"

namespace rlzoo {

PpoAgent::PpoAgent(const AgentSetup& setup)
    : Agent(setup),
      cfg_(parse_config<PpoConfig>(setup.preset.hyperparams, setup.ctx.child("hyperparams"))),
      spec_(preset_env_spec(setup)) {
  const Space& obs = spec_.observation_space;
  if (cfg_.normalize_obs && !(obs.is_box() && dtype_is_floating(obs.dtype())))
    setup.ctx.child("hyperparams.normalize_obs")
        .fail(setup.preset.hyperparams["normalize_obs"],
              "observation normalisation needs a float Box observation space, not " + obs.describe());
  // The categorical head's index is the action everywhere PPO stores or sends one (rollouts,
  // actor threads and processes, export), so a shifted Discrete space is refused, not mis-sent.
  if (spec_.action_space.is_discrete() && spec_.action_space.start() != 0)
    throw UserError(fmt::format("ppo: env {} has the action space {}; PPO needs Discrete actions starting at 0 "
                                "(dqn handles any start)",
                                spec_.id, spec_.action_space.describe()));
  device_ = learner_device(setup);
  torch::manual_seed(static_cast<std::uint64_t>(setup.preset.seed));
  policy_ = ActorCritic(obs, spec_.action_space, cfg_.policy);  // on the CPU: the same weights on any device
  policy_->to(device_);
  if (policy_->continuous()) {  // bounds for clipping actions sent to the envs, built once
    const Space& a = spec_.action_space;
    action_low_ = torch::tensor(a.low(), torch::kFloat64).to(torch::kFloat32).view(a.shape());
    action_high_ = torch::tensor(a.high(), torch::kFloat64).to(torch::kFloat32).view(a.shape());
  }
  optimizer_ = std::make_unique<FusedAdam>(
      policy_->parameters(), torch::optim::AdamOptions(cfg_.learning_rate).eps(cfg_.adam_eps));
  if (cfg_.normalize_obs) obs_norm_ = std::make_unique<ObservationNormalizer>(obs.numel(), cfg_.clip_obs);
  const RuntimeConfig& rt = setup.preset.runtime;
  if (rt.enabled()) {
    if (cfg_.n_envs != 1 && cfg_.n_envs != rt.total_envs())
      setup.ctx.child("hyperparams.n_envs")
          .fail(setup.preset.hyperparams["n_envs"],
                fmt::format("with runtime.actors the envs are actors x envs_per_actor = {}; leave n_envs out or set "
                            "it to that",
                            rt.total_envs()));
  }
  if (cfg_.normalize_reward)
    reward_norm_ = std::make_unique<RewardNormalizer>(rollout_envs(), cfg_.gamma, cfg_.clip_reward);
}

std::int64_t PpoAgent::rollout_envs() const {
  const RuntimeConfig& rt = setup().preset.runtime;
  return rt.enabled() ? rt.total_envs() : cfg_.n_envs;
}

YAML::Node PpoAgent::resolved_hyperparams() const { return to_yaml(cfg_); }

std::vector<torch::Tensor> PpoAgent::learner_parameters() { return policy_->parameters(); }

std::vector<torch::Tensor> PpoAgent::preprocess(std::vector<torch::Tensor> obs, bool update) {
  if (obs_norm_) obs[0] = obs_norm_->normalize(obs[0], update);
  return obs;
}

torch::Tensor PpoAgent::to_env_actions(const torch::Tensor& actions) const {
  if (!policy_->continuous()) return actions.to(torch::kInt64).contiguous();
  return torch::max(torch::min(actions.to(torch::kFloat32), action_high_), action_low_).contiguous();
}

torch::Tensor PpoAgent::act(const std::vector<torch::Tensor>& obs, const ActOptions& options) {
  return act_with_state(obs, options).actions;
}

ActResult PpoAgent::act_with_state(const std::vector<torch::Tensor>& obs, const ActOptions& options) {
  torch::NoGradGuard no_grad;
  const auto x = to_device(preprocess(obs, /*update=*/false), device_);
  const torch::Tensor mask = options.action_mask.defined() ? options.action_mask.to(device_) : torch::Tensor();
  if (!recurrent()) {
    auto [dist, value] = policy_->forward(x, mask);
    return {to_env_actions((options.deterministic ? dist.mode() : dist.sample()).cpu()), {}};
  }
  const std::int64_t rows = x.at(0).size(0);
  const auto fresh = policy_->initial_state(rows);
  torch::Tensor state = fresh;
  if (options.recurrent_state.defined()) {
    if (options.recurrent_state.sizes() != fresh.sizes())
      throw UserError(fmt::format("act: recurrent_state has shape {}, but this policy's state for {} observations has "
                                  "shape {} (pass back the state act_with_state returned)",
                                  c10::str(options.recurrent_state.sizes()), rows, c10::str(fresh.sizes())));
    state = options.recurrent_state.to(device_, torch::kFloat32);
  }
  auto starts = torch::zeros({1, rows}, torch::TensorOptions(torch::kBool).device(device_));
  if (options.episode_start.defined()) {
    if (options.episode_start.numel() != rows)
      throw UserError(
          fmt::format("act: episode_start has {} entries for {} observations", options.episode_start.numel(), rows));
    starts = options.episode_start.to(device_, torch::kBool).reshape({1, rows});
  }
  auto out = policy_->forward_sequence(x, state, starts, mask);
  return {to_env_actions((options.deterministic ? out.dist.mode() : out.dist.sample()).cpu()), out.state.cpu()};
}

torch::Tensor PpoAgent::continued_values(const std::vector<torch::Tensor>& obs, const torch::Tensor& state,
                                         const torch::Tensor& starts) {
  if (!recurrent()) return policy_->value(obs);
  return policy_->forward_sequence(obs, state, starts.view({1, -1}).to(device_)).values;
}

bool PpoAgent::record_step(const std::vector<torch::Tensor>& obs, const torch::Tensor& actions,
                           const torch::Tensor& values, const torch::Tensor& log_probs, const torch::Tensor& masks,
                           const torch::Tensor& episode_starts, const torch::Tensor& state_after,
                           std::span<const double> rewards_in,
                           const StepEpisodes& episodes, ConstBytes final_obs, TrainingMonitor& monitor,
                           CallbackList* callbacks) {
  const auto n = static_cast<std::int64_t>(rewards_in.size());
  // A recurrent policy sees a time-out's final observation as the episode's next step: from the
  // state after this step, not reset.
  add_ppo_step(*buffer_, obs, actions, values, log_probs, masks, episode_starts, rewards_in, episodes.terminated,
               episodes.truncated, reward_norm_.get(), cfg_.gamma, [&](const torch::Tensor& timeouts) {
                 return timeout_values(final_obs, n, timeouts, state_after);
               });
  num_timesteps_ += n;
  return monitor.after_step(*this, episodes, num_timesteps_, callbacks);
}

torch::Tensor PpoAgent::timeout_values(ConstBytes final_obs, std::int64_t n, const torch::Tensor& timeouts,
                                       const torch::Tensor& state_after) {
  auto finals = observation_tensors(spec_.observation_space, final_obs.data(), n, true);
  for (auto& f : finals) f = f.index_select(0, timeouts);
  const auto x = to_device(preprocess(finals, /*update=*/false), device_);
  return continued_values(x, recurrent() ? state_after.index_select(2, timeouts.to(device_)) : torch::Tensor(),
                          torch::zeros({timeouts.size(0)}, torch::kBool))
      .cpu();
}

std::int64_t PpoAgent::envs_per_minibatch() const {
  return std::clamp<std::int64_t>(cfg_.batch_size / cfg_.n_steps, 1, buffer_ ? buffer_->n_envs() : cfg_.n_envs);
}

std::vector<RolloutBuffer::Batch> PpoAgent::minibatches() const {
  RLZOO_CHECK(buffer_ != nullptr, "no rollout yet");
  auto batches =
      recurrent() ? buffer_->sequence_minibatches(envs_per_minibatch()) : buffer_->minibatches(cfg_.batch_size);
  if (!device_.is_cpu())  // the buffer is on the CPU: nine no-op to() calls per epoch otherwise
    for (auto& b : batches) b = b.to(device_);
  return batches;
}

std::pair<ActionDistribution, torch::Tensor> PpoAgent::evaluate_minibatch(const RolloutBuffer::Batch& mb) {
  if (!recurrent()) return policy_->forward(mb.obs, mb.action_masks);
  auto out = policy_->forward_sequence(mb.obs, mb.initial_state, mb.episode_starts, mb.action_masks);
  return {std::move(out.dist), out.values};
}

void PpoAgent::update(TrainingMonitor& monitor) {
  const auto [lr, clip] = apply_ppo_schedule(cfg_, *optimizer_, num_timesteps_, setup().preset.n_timesteps);

  const PpoUpdateStats stats = run_ppo_epochs(
      cfg_, clip, *optimizer_, policy_->parameters(), [this] { return minibatches(); },
      [this](const RolloutBuffer::Batch& mb) { return evaluate_minibatch(mb); },
      [this] { gradient_reducer().reduce(policy_->parameters()); }, n_updates_, num_timesteps_,
      fused_update_on_ ? &fused_update_ : nullptr);
  Logger& log = monitor.logger();
  stats.record(log, *buffer_, lr, clip);
  log.record_excluded("train/n_updates", n_updates_, {"tensorboard"});
  if (policy_->continuous()) log.record("train/std", policy_->log_std().exp().mean().item<double>());
}

void PpoAgent::create_envs() {
  auto envs = make_envs(setup().preset.env, cfg_.n_envs, setup().preset.env_kwargs);
  if (cfg_.vector_threads > 1)
    venv_ = std::make_unique<ThreadedVectorEnv>(std::move(envs), cfg_.vector_threads);
  else
    venv_ = std::make_unique<SyncVectorEnv>(std::move(envs));
  buffer_ = std::make_unique<RolloutBuffer>(cfg_.n_steps, cfg_.n_envs);
}

std::optional<PolicyExport> PpoAgent::export_policy() const {
  PolicyExport e = policy_export_of(PolicyExport::Network::actor_critic, spec_.observation_space,
                                    spec_.action_space, cfg_.policy, *policy_);
  if (obs_norm_)
    e.observation_normalization = PolicyExport::ObservationNormalization{
        obs_norm_->statistics().mean(), obs_norm_->statistics().var(), obs_norm_->clip(), obs_norm_->epsilon()};
  return e;
}

void PpoAgent::reset_recurrent_state() {
  if (!recurrent()) return;
  rnn_state_ = policy_->initial_state(cfg_.n_envs);
  episode_starts_ = torch::ones({cfg_.n_envs}, torch::kBool);
}

CheckpointWriter PpoAgent::checkpoint() const {
  CheckpointWriter w = agent_checkpoint_writer(*this);
  w.add("policy.pt", save_module(*policy_));
  w.add("optimizer.pt", save_optimizer(*optimizer_));
  nlohmann::json state{{"num_timesteps", num_timesteps_}, {"n_updates", n_updates_}};
  if (obs_norm_) state["obs_normalizer"] = obs_norm_->state();
  if (reward_norm_) state["reward_normalizer"] = reward_norm_->state();
  w.add_json("state.json", state);
  add_training_envs(w, venv_.get());
  if (venv_ && rnn_state_.defined())  // the training envs' RNN state, mid-episode as the envs are
    w.add("recurrent_state.pt", save_tensors({{"state", rnn_state_}, {"episode_starts", episode_starts_}}));
  return w;
}

void PpoAgent::restore(const CheckpointReader& reader) {
  load_module(*policy_, reader, "policy.pt");
  load_optimizer(*optimizer_, reader, "optimizer.pt");
  load_generator_state(reader, "torch_rng");
  const auto state = reader.read_json("state.json");
  num_timesteps_ = state.at("num_timesteps").get<std::int64_t>();
  n_updates_ = state.at("n_updates").get<std::int64_t>();
  if (obs_norm_) obs_norm_->load_state(state.at("obs_normalizer"));
  if (reward_norm_) reward_norm_->load_state(state.at("reward_normalizer"));
  if (setup().preset.runtime.enabled()) return;  // actors make their envs when learn() starts
  create_envs();
  restore_training_envs(*venv_, reader,
                        static_cast<std::uint64_t>(setup().preset.seed) + static_cast<std::uint64_t>(num_timesteps_));
  reset_recurrent_state();
  if (recurrent() && reader.has("envs.json") && reader.has("recurrent_state.pt")) {
    auto saved = load_tensors(reader, "recurrent_state.pt");
    if (saved.at("state").sizes() != rnn_state_.sizes())
      throw UserError(fmt::format("{}: recurrent_state.pt holds a state of shape {}, this policy needs {}",
                                  reader.dir().string(), c10::str(saved.at("state").sizes()),
                                  c10::str(rnn_state_.sizes())));
    rnn_state_ = saved.at("state").to(device_);
    episode_starts_ = saved.at("episode_starts");
  }
}

void register_ppo() {
  AlgorithmCapabilities caps;
  caps.observation_spaces = {SpaceKind::Box, SpaceKind::Discrete, SpaceKind::MultiDiscrete, SpaceKind::MultiBinary, SpaceKind::Dict};  // the shared encoders
  caps.action_spaces = {SpaceKind::Discrete, SpaceKind::Box};
  caps.learning = LearningKind::on_policy;
  caps.backends = {Backend::inline_loop, Backend::threads, Backend::processes};
  caps.several_learners = true;
  caps.gpu = true;
  caps.recurrent_policies = true;
  caps.exportable = true;
  register_algorithm("ppo", algorithm_entry<PpoAgent, PpoConfig>(
                                "Proximal Policy Optimization (discrete and continuous actions)", caps));
}

}  // namespace rlzoo
