#include "algorithms/sac/sac.h"

#include <fmt/format.h>

#include <cmath>

#include "algorithms/sac/sac_fused_update.h"
#include "algorithms/sac/sac_loss.h"
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

SacAgent::SacAgent(const AgentSetup& setup) : ContinuousOffPolicyAgent(setup, "sac") {
  cfg_ = parse_config<SacConfig>(setup.preset.hyperparams, setup.ctx.child("hyperparams"));
  ent_ = *parse_entropy_coefficient(cfg_.ent_coef);
  target_entropy_ = cfg_.entropy_target(scaling_.dim());
  torch::manual_seed(static_cast<std::uint64_t>(setup.preset.seed));
  // Made on the CPU, then moved: the same seed gives the same initial weights on every device.
  const auto d = scaling_.dim();
  const int n_critics = static_cast<int>(cfg_.n_critics);
  actor_ = SquashedGaussianActor(spec_.observation_space, d, cfg_.policy, cfg_.use_sde);
  critic_ = ContinuousCritic(spec_.observation_space, d, cfg_.policy, n_critics);
  critic_target_ = ContinuousCritic(spec_.observation_space, d, cfg_.policy, n_critics);
  copy_module(*critic_, *critic_target_);
  for (auto& p : critic_target_->parameters()) p.requires_grad_(false);
  actor_->to(device_);
  critic_->to(device_);
  critic_target_->to(device_);
  log_ent_coef_ = torch::full({1}, std::log(ent_.initial)).to(device_).requires_grad_(ent_.learned);
  const auto adam = torch::optim::AdamOptions(cfg_.learning_rate);
  actor_optimizer_ = std::make_unique<FusedAdam>(actor_->parameters(), adam);
  critic_optimizer_ = std::make_unique<FusedAdam>(critic_->parameters(), adam);
  if (ent_.learned) ent_optimizer_ = std::make_unique<FusedAdam>(std::vector<torch::Tensor>{log_ent_coef_}, adam);
  actor_params_ = actor_->parameters();
  critic_params_ = critic_->parameters();
  fused_ = SacFusedUpdate::make(actor_, critic_, critic_target_);
  GsdeActing gsde;
  if (cfg_.use_sde) gsde = {actor_->latent_dim(), cfg_.sde_sample_freq, cfg_.use_sde_at_warmup};
  set_settings({cfg_.buffer_size, cfg_.learning_starts, cfg_.batch_size, cfg_.gamma, cfg_.n_step, cfg_.train_freq,
                cfg_.gradient_steps, cfg_.n_envs,
                cfg_.use_sde ? ContinuousActing::squashed_sde : ContinuousActing::squashed_gaussian, ActionNoise{}, gsde});
}

YAML::Node SacAgent::resolved_hyperparams() const { return to_yaml(cfg_); }

std::vector<torch::Tensor> SacAgent::learner_parameters() {
  std::vector<torch::Tensor> params = actor_->parameters();
  for (const auto& p : critic_->parameters()) params.push_back(p);
  for (const auto& p : critic_target_->parameters()) params.push_back(p);
  params.push_back(log_ent_coef_);
  return params;
}

double SacAgent::entropy_coefficient() const {
  return ent_.learned ? std::exp(log_ent_coef_.item<double>()) : ent_.initial;
}

torch::Tensor SacAgent::act(const std::vector<torch::Tensor>& obs, const ActOptions& options) {
  torch::NoGradGuard no_grad;
  const auto on_device = to_device(obs, device_);
  if (options.deterministic) return scaling_.to_env(torch::tanh(actor_->mean(on_device).cpu().to(torch::kFloat64)));
  torch::Tensor mean, scale;  // scale: the noise's factor per draw, [B, d] or gSDE's [B, L, d]
  if (cfg_.use_sde) {
    auto [m, latent] = actor_->forward_sde(on_device);
    mean = m;
    scale = latent.unsqueeze(2) * torch::exp(actor_->sde_log_std()).unsqueeze(0);
  } else {
    auto [m, log_std] = actor_->forward(on_device);
    mean = m;
    scale = log_std.exp();
  }
  mean = mean.cpu().to(torch::kFloat64).contiguous();
  scale = scale.cpu().to(torch::kFloat64).contiguous();
  // One draw per noise factor from the agent's stream; gSDE draws a matrix per row.
  const std::int64_t rows = mean.size(0), d = mean.size(1), per_row = scale.numel() / std::max<std::int64_t>(rows, 1);
  const std::int64_t latent = per_row / d;
  auto unit = torch::empty_like(mean);
  const double* m = mean.data_ptr<double>();
  const double* f = scale.data_ptr<double>();
  double* u = unit.data_ptr<double>();
  std::vector<double> eps(static_cast<std::size_t>(per_row));
  for (std::int64_t r = 0; r < rows; ++r) {
    for (auto& e : eps) e = rng_.normal();
    for (std::int64_t j = 0; j < d; ++j) {
      double x = m[r * d + j];
      for (std::int64_t l = 0; l < latent; ++l) x += f[r * per_row + l * d + j] * eps[static_cast<std::size_t>(l * d + j)];
      u[r * d + j] = std::tanh(x);
    }
  }
  return scaling_.to_env(unit);
}

std::optional<PolicyExport> SacAgent::export_policy() const {
  PolicyExport e = policy_export_of(PolicyExport::Network::tanh_actor, spec_.observation_space, spec_.action_space,
                                    cfg_.policy, *actor_);
  e.tanh_in_float64 = true;
  if (cfg_.use_sde) e.clip_mean = kSdeClipMean;
  return e;
}

void SacAgent::use_fused_update(bool on) { fused_on_ = on; }

bool SacAgent::fused_update_applies() const { return fused_on_ && fused_ && fused_->applies(); }

SacAgent::StepLosses SacAgent::torch_step(const UpdateWhere& where) {
  const Space& space = spec_.observation_space;
  // Sampled and decoded on the CPU, where the buffer lives; used on the device.
  const ReplaySample s = sample();
  const auto obs = to_device(observation_tensors(space, s.obs), device_);
  const auto actions = unit_actions(s.actions).to(device_);
  const torch::Tensor rewards = s.rewards.to(device_), discounts = s.discounts.to(device_),
                      terminated = s.terminated.to(device_);
  // The policy's actions on the batch (reparameterised), then the entropy coefficient's step.
  // gSDE: one exploration matrix per gradient step for the batch and its next observations
  // (SB3's reset_noise before each step).
  const auto weights = cfg_.use_sde ? torch::randn(actor_->sde_log_std().sizes(), actor_->sde_log_std().options())
                                    : torch::Tensor();
  auto draw = [&](const std::vector<torch::Tensor>& o) {
    if (cfg_.use_sde) {
      const auto [mean, latent] = actor_->forward_sde(o);
      return squashed_sde_sample(mean, latent, actor_->sde_log_std(), weights);
    }
    const auto [mean, log_std] = actor_->forward(o);
    return squashed_gaussian_sample(mean, log_std, torch::randn_like(mean));
  };
  StepLosses out;
  const SquashedSample pi = draw(obs);
  out.alpha = entropy_coefficient();  // before this step's update, as SB3
  if (ent_.learned) {
    const auto ent_loss = sac_entropy_loss(log_ent_coef_, pi.log_prob, target_entropy_);
    zero_gradients(*ent_optimizer_);
    ent_loss.backward();
    clip_and_check_gradients({log_ent_coef_}, 0.0, ent_loss, where);
    ent_optimizer_->step();
    out.ent_loss = ent_loss.item<double>();
  }
  torch::Tensor target;
  {
    torch::NoGradGuard no_grad;
    const auto next = to_device(observation_tensors(space, s.next_obs), device_);
    const SquashedSample next_pi = draw(next);
    target = sac_critic_target(critic_target_->forward(next, next_pi.actions), next_pi.log_prob, rewards, discounts,
                               terminated, out.alpha);
  }
  const auto critic_loss = sac_critic_loss(critic_->forward(obs, actions), target);
  zero_gradients(*critic_optimizer_);
  critic_loss.backward();
  clip_and_check_gradients(critic_params_, 0.0, critic_loss, where);
  critic_optimizer_->step();
  const auto actor_loss = sac_actor_loss(critic_->forward(obs, pi.actions), pi.log_prob, out.alpha);
  zero_gradients(*actor_optimizer_);
  actor_loss.backward();
  clip_and_check_gradients(actor_params_, 0.0, actor_loss, where);
  actor_optimizer_->step();
  out.actor_loss = actor_loss.item<double>();
  out.critic_loss = critic_loss.item<double>();
  return out;
}

SacAgent::StepLosses SacAgent::fused_step(const UpdateWhere& where) {
  const ReplayRowTensors tensors = sample_rows();
  const ReplayRows batch = tensors.rows();
  const std::int64_t rows = batch.rows, d = scaling_.dim();
  // The draws in the LibTorch step's order: the batch's, then the next observations'.
  const auto noise = torch::randn({rows, d});
  StepLosses out;
  const double mean_log_prob = fused_->sample_policy(batch, noise.data_ptr<float>());
  out.alpha = entropy_coefficient();
  if (ent_.learned) {
    // sac_entropy_loss: -mean(log_alpha (log pi + target)); its gradient -mean(log pi + target).
    zero_gradients(*ent_optimizer_);
    const double log_alpha = std::log(out.alpha), g = -(mean_log_prob + target_entropy_);
    if (!log_ent_coef_.grad().defined()) log_ent_coef_.mutable_grad() = torch::zeros_like(log_ent_coef_);
    log_ent_coef_.grad().data_ptr<float>()[0] = static_cast<float>(g);
    out.ent_loss = log_alpha * g;
    clip_and_check_gradients({log_ent_coef_}, 0.0, out.ent_loss, where);
    ent_optimizer_->step();
  }
  const auto next_noise = torch::randn({rows, d});
  zero_gradients(*critic_optimizer_);
  out.critic_loss = fused_->critic_gradients(batch, next_noise.data_ptr<float>(), out.alpha);
  clip_and_check_gradients(critic_params_, 0.0, out.critic_loss, where);
  critic_optimizer_->step();
  zero_gradients(*actor_optimizer_);
  out.actor_loss = fused_->actor_gradients(out.alpha);
  clip_and_check_gradients(actor_params_, 0.0, out.actor_loss, where);
  actor_optimizer_->step();
  return out;
}

void SacAgent::train(std::int64_t gradient_steps, TrainingMonitor& monitor) {
  double actor_sum = 0, critic_sum = 0, alpha_sum = 0, ent_loss_sum = 0;
  const bool fused = fused_update_applies();
  for (std::int64_t step = 0; step < gradient_steps; ++step) {
    const UpdateWhere where{"SAC gradient step", n_updates_ + 1, num_timesteps_};
    const StepLosses l = fused ? fused_step(where) : torch_step(where);
    ++n_updates_;
    // SB3 counts within the training phase: the first gradient step of each phase updates too.
    if (step % cfg_.target_update_interval == 0) polyak_update(*critic_, *critic_target_, cfg_.tau);
    actor_sum += l.actor_loss;
    critic_sum += l.critic_loss;
    alpha_sum += l.alpha;
    ent_loss_sum += l.ent_loss;
  }
  Logger& log = monitor.logger();
  const double steps = static_cast<double>(std::max<std::int64_t>(gradient_steps, 1));
  log.record("train/ent_coef", alpha_sum / steps);
  log.record("train/actor_loss", actor_sum / steps);
  log.record("train/critic_loss", critic_sum / steps);
  if (ent_.learned) log.record("train/ent_coef_loss", ent_loss_sum / steps);
  log.record("train/learning_rate", cfg_.learning_rate);
  log.record_excluded("train/n_updates", n_updates_, {"tensorboard"});
}

std::shared_ptr<BatchEvaluator> SacAgent::acting_evaluator(const ModuleParameterStore* store) const {
  SquashedGaussianActor actor =
      store ? SquashedGaussianActor(spec_.observation_space, scaling_.dim(), cfg_.policy, cfg_.use_sde) : actor_;
  const std::int64_t d = scaling_.dim();
  if (cfg_.use_sde)  // the mean, then latent_l exp(log_std_lj) (rl/continuous_acting.h)
    return std::make_shared<ModuleEvaluator>(
        spec_.observation_space, static_cast<std::size_t>(d + actor->latent_dim() * d), actor.ptr(),
        [actor](const std::vector<torch::Tensor>& obs) mutable {
          auto [mean, latent] = actor->forward_sde(obs);
          const auto scale = latent.unsqueeze(2) * torch::exp(actor->sde_log_std()).unsqueeze(0);
          return torch::cat({mean, scale.reshape({latent.size(0), -1})}, 1);
        },
        store);
  return std::make_shared<ModuleEvaluator>(
      spec_.observation_space, static_cast<std::size_t>(2 * d), actor.ptr(),
      [actor](const std::vector<torch::Tensor>& obs) mutable {
        auto [mean, log_std] = actor->forward(obs);
        return torch::cat({mean, log_std}, 1);
      },
      store);
}

void SacAgent::save_networks(CheckpointWriter& w) const {
  w.add("actor.pt", save_module(*actor_));
  w.add("critic.pt", save_module(*critic_));
  w.add("critic_target.pt", save_module(*critic_target_));
  w.add("actor_optimizer.pt", save_optimizer(*actor_optimizer_));
  w.add("critic_optimizer.pt", save_optimizer(*critic_optimizer_));
  if (ent_optimizer_) w.add("ent_coef_optimizer.pt", save_optimizer(*ent_optimizer_));
  w.add("log_ent_coef.pt", save_tensors({{"log_ent_coef", log_ent_coef_.detach().cpu()}}));
}

void SacAgent::load_networks(const CheckpointReader& reader) {
  load_module(*actor_, reader, "actor.pt");
  load_module(*critic_, reader, "critic.pt");
  load_module(*critic_target_, reader, "critic_target.pt");
  load_optimizer(*actor_optimizer_, reader, "actor_optimizer.pt");
  load_optimizer(*critic_optimizer_, reader, "critic_optimizer.pt");
  if (ent_optimizer_) load_optimizer(*ent_optimizer_, reader, "ent_coef_optimizer.pt");
  const TensorMap saved = load_tensors(reader, "log_ent_coef.pt");
  const auto it = saved.find("log_ent_coef");
  if (it == saved.end() || it->second.numel() != 1)
    throw UserError(fmt::format("{}: no log_ent_coef of one value", (reader.dir() / "log_ent_coef.pt").string()));
  torch::NoGradGuard no_grad;
  log_ent_coef_.copy_(it->second);
}

void register_sac() {
  register_algorithm("sac", algorithm_entry<SacAgent, SacConfig>(
                                "Soft Actor-Critic (float Box actions with finite bounds; SB3's conventions)",
                                continuous_off_policy_capabilities()));
}

}  // namespace rlzoo
