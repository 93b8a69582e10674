#include "algorithms/ppo/ppo.h"

#include <fmt/format.h>

#include "agents/agent_checkpoint.h"
#include "agents/nets/observation.h"
#include "agents/training_monitor.h"
#include "core/runtime/trajectory.h"
#include "core/registry/env_registry.h"
#include "core/torch/tensor_io.h"
#include "core/torch/threads.h"

namespace rlzoo {

PpoAgent::PpoAgent(const AgentSetup& setup)
    : setup_(setup),
      cfg_(parse_config<PpoConfig>(setup.preset.hyperparams, setup.ctx.child("hyperparams"))),
      spec_(preset_env_spec(setup)) {
  const Space& obs = spec_.observation_space;
  if (cfg_.normalize_obs && !(obs.is_box() && dtype_is_floating(obs.dtype())))
    setup.ctx.child("hyperparams.normalize_obs")
        .fail(setup.preset.hyperparams["normalize_obs"],
              "observation normalisation needs a float Box observation space, not " + obs.describe());
  torch::manual_seed(static_cast<std::uint64_t>(setup.preset.seed));
  policy_ = ActorCritic(obs, spec_.action_space, cfg_.policy);
  if (policy_->continuous()) {  // bounds for clipping actions sent to the envs, built once
    const Space& a = spec_.action_space;
    action_low_ = torch::tensor(a.low(), torch::kFloat64).to(torch::kFloat32).view(a.shape());
    action_high_ = torch::tensor(a.high(), torch::kFloat64).to(torch::kFloat32).view(a.shape());
  }
  optimizer_ = std::make_unique<torch::optim::Adam>(
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
    if (cfg_.normalize_obs)
      setup.ctx.child("hyperparams.normalize_obs")
          .fail(setup.preset.hyperparams["normalize_obs"],
                "observation normalisation is not supported with runtime.actors yet (use the synchronous loop)");
  }
  if (cfg_.normalize_reward)
    reward_norm_ = std::make_unique<RewardNormalizer>(rollout_envs(), cfg_.gamma, cfg_.clip_reward);
}

std::int64_t PpoAgent::rollout_envs() const {
  const RuntimeConfig& rt = setup_.preset.runtime;
  return rt.enabled() ? rt.total_envs() : cfg_.n_envs;
}

YAML::Node PpoAgent::config() const {
  YAML::Node n = to_yaml(setup_.preset);
  n["hyperparams"] = to_yaml(cfg_);
  return n;
}

double PpoAgent::progress_remaining() const {
  return std::max(0.0, 1.0 - static_cast<double>(num_timesteps_) / static_cast<double>(setup_.preset.n_timesteps));
}

std::vector<torch::Tensor> PpoAgent::preprocess(std::vector<torch::Tensor> obs, bool update) {
  if (obs_norm_) obs[0] = obs_norm_->normalize(obs[0], update);
  return obs;
}

std::vector<torch::Tensor> PpoAgent::current_observations() const {
  return observation_tensors(spec_.observation_space, venv_->observation_bytes().data(), venv_->num_envs(), true);
}

torch::Tensor PpoAgent::current_masks() const {
  if (!spec_.has_action_mask) return {};
  const auto m = venv_->action_masks();
  return torch::from_blob(const_cast<std::uint8_t*>(m.data()), {venv_->num_envs(), spec_.action_space.n()}, torch::kUInt8)
      .to(torch::kBool);
}

torch::Tensor PpoAgent::to_env_actions(const torch::Tensor& actions) const {
  if (!policy_->continuous()) return actions.to(torch::kInt64).contiguous();
  return torch::max(torch::min(actions.to(torch::kFloat32), action_high_), action_low_).contiguous();
}

torch::Tensor PpoAgent::act(const std::vector<torch::Tensor>& obs, const ActOptions& options) {
  torch::NoGradGuard no_grad;
  const auto x = preprocess(obs, /*update=*/false);
  auto [dist, value] = policy_->forward(x, options.action_mask);
  return to_env_actions(options.deterministic ? dist.mode() : dist.sample());
}

bool PpoAgent::record_step(const std::vector<torch::Tensor>& obs, const torch::Tensor& actions,
                           const torch::Tensor& values, const torch::Tensor& log_probs, const torch::Tensor& masks,
                           std::span<const double> rewards_in, const StepEpisodes& episodes, ConstBytes final_obs,
                           TrainingMonitor& monitor, CallbackList* callbacks) {
  const auto n = static_cast<std::int64_t>(rewards_in.size());
  const auto term =
      torch::from_blob(const_cast<std::uint8_t*>(episodes.terminated.data()), {n}, torch::kUInt8).to(torch::kBool);
  const auto trunc =
      torch::from_blob(const_cast<std::uint8_t*>(episodes.truncated.data()), {n}, torch::kUInt8).to(torch::kBool);
  const auto dones = (term | trunc).to(torch::kFloat32);
  auto rewards = torch::from_blob(const_cast<double*>(rewards_in.data()), {n}, torch::kFloat64).to(torch::kFloat32);
  if (reward_norm_) rewards = reward_norm_->normalize(rewards, dones, /*update=*/true);
  // Time-outs are not terminal: bootstrap from the true final observation (SB3).
  const auto timeouts = (trunc & term.logical_not()).nonzero().squeeze(-1);
  if (timeouts.numel() > 0) {
    auto finals = observation_tensors(spec_.observation_space, final_obs.data(), n, true);
    for (auto& f : finals) f = f.index_select(0, timeouts);
    const auto v = policy_->value(preprocess(finals, /*update=*/false));
    rewards.index_add_(0, timeouts, static_cast<float>(cfg_.gamma) * v);
  }
  buffer_->add(obs, actions, rewards, dones, values, log_probs, masks);
  num_timesteps_ += n;
  return monitor.after_step(*this, episodes, num_timesteps_, callbacks);
}

void PpoAgent::collect_rollout(TrainingMonitor& monitor, CallbackList* callbacks, bool& stop) {
  torch::NoGradGuard no_grad;
  buffer_->reset();
  while (!buffer_->full()) {
    const auto obs = preprocess(current_observations(), /*update=*/true);
    const auto masks = current_masks();
    auto [dist, values] = policy_->forward(obs, masks);
    const auto actions = dist.sample();
    const auto log_probs = dist.log_prob(actions);
    const auto env_actions = to_env_actions(actions);
    venv_->step(ConstBytes(static_cast<const std::byte*>(env_actions.data_ptr()), env_actions.nbytes()));
    const StepEpisodes episodes{venv_->terminated(), venv_->truncated(), venv_->episode_returns(),
                                venv_->episode_lengths()};
    if (!record_step(obs, actions, values, log_probs, masks, venv_->rewards(), episodes,
                     venv_->final_observation_bytes(), monitor, callbacks))
      stop = true;
  }
  const auto last_values = policy_->value(preprocess(current_observations(), /*update=*/false));
  buffer_->compute_returns_and_advantages(last_values, cfg_.gamma, cfg_.gae_lambda);
}

void PpoAgent::update(TrainingMonitor& monitor) {
  const double remaining = progress_remaining();
  const double lr = cfg_.lr_schedule == "linear" ? cfg_.learning_rate * remaining : cfg_.learning_rate;
  const double clip = cfg_.clip_range_schedule == "linear" ? cfg_.clip_range * remaining : cfg_.clip_range;
  for (auto& group : optimizer_->param_groups()) static_cast<torch::optim::AdamOptions&>(group.options()).lr(lr);

  std::vector<double> pg_losses, value_losses, entropy_losses, clip_fractions, approx_kls;
  double loss_value = 0;
  bool continue_training = true;
  for (std::int64_t epoch = 0; epoch < cfg_.n_epochs && continue_training; ++epoch) {
    for (auto& mb : buffer_->minibatches(cfg_.batch_size)) {
      auto [dist, values] = policy_->forward(mb.obs, mb.action_masks);
      const auto log_prob = dist.log_prob(mb.actions);
      auto adv = mb.advantages;
      if (cfg_.normalize_advantage && adv.size(0) > 1) adv = (adv - adv.mean()) / (adv.std() + 1e-8);
      const auto log_ratio = log_prob - mb.old_log_probs;
      const auto ratio = log_ratio.exp();
      const auto pg_loss = -torch::min(adv * ratio, adv * ratio.clamp(1.0 - clip, 1.0 + clip)).mean();
      auto values_pred = values;
      if (cfg_.clip_range_vf)
        values_pred = mb.old_values + (values - mb.old_values).clamp(-*cfg_.clip_range_vf, *cfg_.clip_range_vf);
      const auto value_loss = torch::mse_loss(values_pred, mb.returns);
      const auto entropy_loss = -dist.entropy().mean();
      const auto loss = pg_loss + cfg_.ent_coef * entropy_loss + cfg_.vf_coef * value_loss;
      {
        torch::NoGradGuard no_grad;
        const double kl = ((ratio - 1) - log_ratio).mean().item<double>();
        approx_kls.push_back(kl);
        clip_fractions.push_back(((ratio - 1).abs() > clip).to(torch::kFloat32).mean().item<double>());
        if (cfg_.target_kl && kl > 1.5 * *cfg_.target_kl) {
          continue_training = false;
          break;
        }
      }
      optimizer_->zero_grad();
      loss.backward();
      gradient_reducer().reduce(policy_->parameters());
      torch::nn::utils::clip_grad_norm_(policy_->parameters(), cfg_.max_grad_norm);
      optimizer_->step();
      ++n_updates_;
      pg_losses.push_back(pg_loss.item<double>());
      value_losses.push_back(value_loss.item<double>());
      entropy_losses.push_back(entropy_loss.item<double>());
      loss_value = loss.item<double>();
    }
  }
  auto mean = [](const std::vector<double>& v) {
    double s = 0;
    for (double x : v) s += x;
    return v.empty() ? 0.0 : s / static_cast<double>(v.size());
  };
  const auto values = buffer_->values().flatten(), returns = buffer_->returns().flatten();
  const double var_y = returns.var().item<double>();
  const double explained = var_y == 0 ? std::nan("") : 1.0 - (returns - values).var().item<double>() / var_y;
  Logger& log = monitor.logger();
  log.record("train/policy_gradient_loss", mean(pg_losses));
  log.record("train/value_loss", mean(value_losses));
  log.record("train/entropy_loss", mean(entropy_losses));
  log.record("train/approx_kl", mean(approx_kls));
  log.record("train/clip_fraction", mean(clip_fractions));
  log.record("train/loss", loss_value);
  log.record("train/explained_variance", explained);
  log.record("train/learning_rate", lr);
  log.record("train/clip_range", clip);
  log.record_excluded("train/n_updates", n_updates_, {"tensorboard"});
  if (policy_->continuous()) log.record("train/std", policy_->log_std().exp().mean().item<double>());
}

void PpoAgent::learn(std::int64_t timesteps, CallbackList* callbacks) {
  if (timesteps < 1) throw UserError(fmt::format("learn: timesteps must be >= 1, got {}", timesteps));
  configure_threads(setup_.preset.torch_threads, 1);
  if (setup_.preset.runtime.enabled()) return learn_parallel(timesteps, callbacks);
  if (!venv_) {
    create_envs();
    venv_->reset(static_cast<std::uint64_t>(setup_.preset.seed));
  }
  const std::int64_t target = num_timesteps_ + timesteps;
  TrainingMonitor monitor(*this, target, setup_.preset.log_every);
  if (callbacks) callbacks->on_training_start(*this);
  bool stop = false;
  while (num_timesteps_ < target && !stop) {
    collect_rollout(monitor, callbacks, stop);
    update(monitor);
    if (callbacks) callbacks->on_rollout_end(*this, num_timesteps_);
  }
  monitor.finish(num_timesteps_);
  if (callbacks) callbacks->on_training_end(*this);
}

void PpoAgent::create_envs() {
  auto envs = make_envs(setup_.preset.env, cfg_.n_envs, setup_.preset.env_kwargs);
  if (cfg_.vector_threads > 1)
    venv_ = std::make_unique<ThreadedVectorEnv>(std::move(envs), cfg_.vector_threads);
  else
    venv_ = std::make_unique<SyncVectorEnv>(std::move(envs));
  buffer_ = std::make_unique<RolloutBuffer>(cfg_.n_steps, cfg_.n_envs);
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
  if (setup_.preset.runtime.enabled()) return;  // actors make their envs when learn() starts
  create_envs();
  restore_training_envs(*venv_, reader,
                        static_cast<std::uint64_t>(setup_.preset.seed) + static_cast<std::uint64_t>(num_timesteps_));
}

void register_ppo() {
  register_algorithm("ppo", AlgorithmEntry{
                                [](const AgentSetup& s) -> std::unique_ptr<Agent> { return std::make_unique<PpoAgent>(s); },
                                [](const AgentSetup& s, const CheckpointReader& r) -> std::unique_ptr<Agent> {
                                  auto agent = std::make_unique<PpoAgent>(s);
                                  agent->restore(r);
                                  return agent;
                                },
                                [] { return describe_config<PpoConfig>(); },
                                "Proximal Policy Optimization (discrete and continuous actions)"});
}

}  // namespace rlzoo
