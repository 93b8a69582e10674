#include "algorithms/td3/td3.h"

#include <fmt/format.h>

#include "algorithms/td3/td3_loss.h"
#include "rl/export/policy_export.h"
#include "rl/gradient_guard.h"
#include "rl/nets/observation.h"
#include "rl/nets/target_network.h"
#include "rl/optim/zero_gradients.h"
#include "rl/runtime/module_evaluator.h"
#include "rl/training_monitor.h"
#include "core/torch/device.h"
#include "core/torch/tensor_io.h"

namespace rlzoo {

Td3Agent::Td3Agent(const AgentSetup& setup, const std::string& id, std::pair<Td3Config, YAML::Node> config)
    : ContinuousOffPolicyAgent(setup, id), id_(id), cfg_(std::move(config.first)), resolved_(std::move(config.second)) {
  torch::manual_seed(static_cast<std::uint64_t>(setup.preset.seed));
  // Made on the CPU, then moved: the same seed gives the same initial weights on every device.
  const auto d = scaling_.dim();
  const int n_critics = static_cast<int>(cfg_.n_critics);
  actor_ = DeterministicActor(spec_.observation_space, d, cfg_.policy);
  actor_target_ = DeterministicActor(spec_.observation_space, d, cfg_.policy);
  critic_ = ContinuousCritic(spec_.observation_space, d, cfg_.policy, n_critics);
  critic_target_ = ContinuousCritic(spec_.observation_space, d, cfg_.policy, n_critics);
  copy_module(*actor_, *actor_target_);
  copy_module(*critic_, *critic_target_);
  for (auto& p : actor_target_->parameters()) p.requires_grad_(false);
  for (auto& p : critic_target_->parameters()) p.requires_grad_(false);
  for (torch::nn::Module* m : std::initializer_list<torch::nn::Module*>{actor_.get(), actor_target_.get(), critic_.get(),
                                                                        critic_target_.get()})
    m->to(device_);
  const auto adam = torch::optim::AdamOptions(cfg_.learning_rate);
  actor_optimizer_ = std::make_unique<FusedAdam>(actor_->parameters(), adam);
  critic_optimizer_ = std::make_unique<FusedAdam>(critic_->parameters(), adam);
  actor_params_ = actor_->parameters();
  critic_params_ = critic_->parameters();
  fused_ = Td3FusedUpdate::make(actor_, actor_target_, critic_, critic_target_);
  set_settings({cfg_.buffer_size, cfg_.learning_starts, cfg_.batch_size, cfg_.gamma, cfg_.n_step, cfg_.train_freq,
                cfg_.gradient_steps, cfg_.n_envs, ContinuousActing::deterministic,
                ActionNoise::named(cfg_.action_noise, cfg_.action_noise_sigma), GsdeActing{}});
}

YAML::Node Td3Agent::resolved_hyperparams() const { return resolved_; }

std::vector<torch::Tensor> Td3Agent::learner_parameters() {
  std::vector<torch::Tensor> params;
  for (const torch::nn::Module* m : std::initializer_list<const torch::nn::Module*>{actor_.get(), actor_target_.get(),
                                                                                    critic_.get(), critic_target_.get()})
    for (const auto& p : m->parameters()) params.push_back(p);
  return params;
}

torch::Tensor Td3Agent::act(const std::vector<torch::Tensor>& obs, const ActOptions& options) {
  torch::NoGradGuard no_grad;
  auto unit = actor_->forward(to_device(obs, device_)).cpu().to(torch::kFloat64).contiguous();
  const ActionNoise noise = ActionNoise::named(cfg_.action_noise, cfg_.action_noise_sigma);
  if (!options.deterministic && noise.kind != ActionNoise::Kind::none) {
    // One draw per value from the agent's stream; act() keeps no Ornstein-Uhlenbeck state, so
    // both noises are N(0, sigma^2) here (the OU process's stationary spread differs).
    double* u = unit.data_ptr<double>();
    for (std::int64_t i = 0; i < unit.numel(); ++i) u[i] = std::clamp(u[i] + noise.sigma * rng_.normal(), -1.0, 1.0);
  }
  return scaling_.to_env(unit);
}

std::optional<PolicyExport> Td3Agent::export_policy() const {
  PolicyExport e = policy_export_of(PolicyExport::Network::tanh_actor, spec_.observation_space, spec_.action_space,
                                    cfg_.policy, *actor_);
  e.tanh_in_float64 = false;
  return e;
}

void Td3Agent::use_fused_update(bool on) { fused_on_ = on; }

bool Td3Agent::fused_update_applies() const { return fused_on_ && fused_ && fused_->applies(); }

Td3Agent::StepLosses Td3Agent::torch_step(const UpdateWhere& where, bool actor_turn) {
  const Space& space = spec_.observation_space;
  const ReplaySample s = sample();
  const auto obs = to_device(observation_tensors(space, s.obs), device_);
  const auto actions = unit_actions(s.actions).to(device_);
  torch::Tensor target;
  {
    torch::NoGradGuard no_grad;
    const auto next = to_device(observation_tensors(space, s.next_obs), device_);
    const auto next_actions = td3_smoothed_actions(actor_target_->forward(next), torch::randn_like(actions),
                                                   cfg_.target_policy_noise, cfg_.target_noise_clip);
    target = td3_critic_target(critic_target_->forward(next, next_actions), s.rewards.to(device_),
                               s.discounts.to(device_), s.terminated.to(device_));
  }
  const auto critic_loss = td3_critic_loss(critic_->forward(obs, actions), target);
  zero_gradients(*critic_optimizer_);
  critic_loss.backward();
  clip_and_check_gradients(critic_params_, 0.0, critic_loss, where);
  critic_optimizer_->step();
  StepLosses out;
  out.critic_loss = critic_loss.item<double>();
  if (!actor_turn) return out;
  const auto actor_loss = -critic_->q1(obs, actor_->forward(obs)).mean();
  zero_gradients(*actor_optimizer_);
  actor_loss.backward();
  clip_and_check_gradients(actor_params_, 0.0, actor_loss, where);
  actor_optimizer_->step();
  out.actor_loss = actor_loss.item<double>();
  return out;
}

Td3Agent::StepLosses Td3Agent::fused_step(const UpdateWhere& where, bool actor_turn) {
  const ReplayRowTensors tensors = sample_rows();
  const ReplayRows batch = tensors.rows();
  // The smoothing noise, drawn as the LibTorch step draws it.
  const auto noise = torch::randn({batch.rows, scaling_.dim()});
  StepLosses out;
  zero_gradients(*critic_optimizer_);
  out.critic_loss =
      fused_->critic_gradients(batch, noise.data_ptr<float>(), cfg_.target_policy_noise, cfg_.target_noise_clip);
  clip_and_check_gradients(critic_params_, 0.0, out.critic_loss, where);
  critic_optimizer_->step();
  if (!actor_turn) return out;
  zero_gradients(*actor_optimizer_);
  out.actor_loss = fused_->actor_gradients(batch);
  clip_and_check_gradients(actor_params_, 0.0, out.actor_loss, where);
  actor_optimizer_->step();
  return out;
}

void Td3Agent::train(std::int64_t gradient_steps, TrainingMonitor& monitor) {
  double actor_sum = 0, critic_sum = 0;
  std::int64_t actor_updates = 0;
  const bool fused = fused_update_applies();
  for (std::int64_t step = 0; step < gradient_steps; ++step) {
    ++n_updates_;
    const UpdateWhere where{id_ == "ddpg" ? "DDPG gradient step" : "TD3 gradient step", n_updates_, num_timesteps_};
    const bool actor_turn = n_updates_ % cfg_.policy_delay == 0;
    const StepLosses l = fused ? fused_step(where, actor_turn) : torch_step(where, actor_turn);
    critic_sum += l.critic_loss;
    if (!actor_turn) continue;
    polyak_update(*critic_, *critic_target_, cfg_.tau);
    polyak_update(*actor_, *actor_target_, cfg_.tau);
    actor_sum += l.actor_loss;
    ++actor_updates;
  }
  Logger& log = monitor.logger();
  if (actor_updates > 0) log.record("train/actor_loss", actor_sum / static_cast<double>(actor_updates));
  log.record("train/critic_loss", critic_sum / static_cast<double>(std::max<std::int64_t>(gradient_steps, 1)));
  log.record("train/learning_rate", cfg_.learning_rate);
  log.record_excluded("train/n_updates", n_updates_, {"tensorboard"});
}

std::shared_ptr<BatchEvaluator> Td3Agent::acting_evaluator(const ModuleParameterStore* store) const {
  DeterministicActor actor = store ? DeterministicActor(spec_.observation_space, scaling_.dim(), cfg_.policy) : actor_;
  return std::make_shared<ModuleEvaluator>(
      spec_.observation_space, static_cast<std::size_t>(scaling_.dim()), actor.ptr(),
      [actor](const std::vector<torch::Tensor>& obs) mutable { return actor->forward(obs); }, store);
}

void Td3Agent::save_networks(CheckpointWriter& w) const {
  w.add("actor.pt", save_module(*actor_));
  w.add("actor_target.pt", save_module(*actor_target_));
  w.add("critic.pt", save_module(*critic_));
  w.add("critic_target.pt", save_module(*critic_target_));
  w.add("actor_optimizer.pt", save_optimizer(*actor_optimizer_));
  w.add("critic_optimizer.pt", save_optimizer(*critic_optimizer_));
}

void Td3Agent::load_networks(const CheckpointReader& reader) {
  load_module(*actor_, reader, "actor.pt");
  load_module(*actor_target_, reader, "actor_target.pt");
  load_module(*critic_, reader, "critic.pt");
  load_module(*critic_target_, reader, "critic_target.pt");
  load_optimizer(*actor_optimizer_, reader, "actor_optimizer.pt");
  load_optimizer(*critic_optimizer_, reader, "critic_optimizer.pt");
}

namespace {
// The settings, sliced to Td3Config, and the YAML of the config type they were parsed as.
template <class C>
std::pair<Td3Config, YAML::Node> parsed(const AgentSetup& setup) {
  const C c = parse_config<C>(setup.preset.hyperparams, setup.ctx.child("hyperparams"));
  return {c, to_yaml(c)};
}
}  // namespace

Td3FromPreset::Td3FromPreset(const AgentSetup& setup) : Td3Agent(setup, "td3", parsed<Td3Config>(setup)) {}
DdpgFromPreset::DdpgFromPreset(const AgentSetup& setup) : Td3Agent(setup, "ddpg", parsed<DdpgConfig>(setup)) {}

void register_td3() {
  const AlgorithmCapabilities caps = continuous_off_policy_capabilities();
  register_algorithm("td3", algorithm_entry<Td3FromPreset, Td3Config>(
                                "TD3 (float Box actions with finite bounds; SB3's conventions)", caps));
  register_algorithm("ddpg", algorithm_entry<DdpgFromPreset, DdpgConfig>(
                                 "DDPG: TD3 with one critic, no policy delay and no target smoothing (SB3's)", caps));
}

}  // namespace rlzoo
