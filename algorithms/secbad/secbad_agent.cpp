#include "algorithms/secbad/secbad_agent.h"

#include <fmt/format.h>

#include "rl/gradient_guard.h"
#include "rl/learner_device.h"
#include "rl/nets/observation.h"
#include "rl/training_run.h"
#include "algorithms/ppo/ppo_loss.h"
#include "core/env/env_purpose.h"
#include "core/registry/env_registry.h"
#include "envs/contexts/piecewise_context.h"

namespace rlzoo::secbad {

namespace {

const char* method_name(Method m) {
  switch (m) {
    case Method::secbad: return "secbad";
    case Method::varibad: return "varibad";
    case Method::oracle: return "belief_oracle";
    case Method::none: return "belief_ppo";
  }
  return "?";
}

std::vector<torch::Tensor> parameters_of(std::initializer_list<torch::nn::Module*> modules) {
  std::vector<torch::Tensor> out;
  for (auto* m : modules)
    if (m)
      for (auto& p : m->parameters()) out.push_back(p);
  return out;
}

}  // namespace

SecbadAgent::SecbadAgent(const AgentSetup& setup, Method method)
    : Agent(setup),
      method_(method),
      cfg_(parse_config<SecbadConfig>(setup.preset.hyperparams, setup.ctx.child("hyperparams"))),
      spec_(preset_env_spec(setup)),
      episodes_(cfg_.vae.buffer_episodes),
      rng_(derive_seed(static_cast<std::uint64_t>(setup.preset.seed), 0x5ecbad)) {
  const std::string algo = method_name(method);
  const Space& obs = spec_.observation_space;
  if (!(obs.is_box() && dtype_is_floating(obs.dtype())))
    throw UserError(fmt::format("{}: the observation must be a float Box (the state), {} has {}", algo, spec_.id,
                                obs.describe()));
  state_dim_ = obs.numel();
  const Space& act = spec_.action_space;
  action_dim_ = act.is_discrete() ? act.n() : act.numel();

  // What the env says about its contexts and segments.
  auto probe = make_env(setup.preset.env, setup.preset.env_kwargs, setup.ctx.child("env_kwargs"));
  auto* contextual = find_in_chain<ContextualEnv>(*probe);
  auto* piecewise = find_in_chain<PiecewiseContext>(*probe);
  if ((method == Method::secbad || method == Method::oracle) && !piecewise)
    throw UserError(fmt::format("{} needs an env with piecewise-stable contexts (a PiecewiseContext wrapper, as "
                                "SecbadGrid-v0 or HalfCheetahDirPiecewise-v0); {} has none",
                                algo, spec_.id));
  if (contextual) context_dim_ = static_cast<std::int64_t>(contextual->context().size());
  if (piecewise) {
    const std::int64_t horizon = spec_.max_episode_steps > 0 ? spec_.max_episode_steps : 1000;
    Rng prior_rng(derive_seed(static_cast<std::uint64_t>(setup.preset.seed), 0x9a105));
    prior_ = cfg_.segment_prior == "constant" ? SegmentPrior::constant(piecewise->segments().mean)
                                               : SegmentPrior::estimate(piecewise->segments(), horizon, prior_rng);
  } else {
    prior_ = SegmentPrior::constant(1e9);  // never used: varibad and belief_ppo do not segment
  }

  torch::manual_seed(static_cast<std::uint64_t>(setup.preset.seed));
  policy_ = BeliefActorCritic(state_dim_, belief_dim(), act, cfg_);
  optimizer_ = std::make_unique<torch::optim::Adam>(
      policy_->parameters(), torch::optim::AdamOptions(cfg_.ppo.learning_rate).eps(cfg_.ppo.adam_eps));
  if (uses_vae()) {
    encoder_ = BeliefEncoder(state_dim_, action_dim_, cfg_.vae);
    reward_decoder_ = RewardDecoder(encoder_, cfg_.vae.reward_decoder);
    if (cfg_.vae.task_loss_coeff > 0 && context_dim_ > 0)
      task_decoder_ = make_task_decoder(cfg_.vae.latent_dim, cfg_.vae.task_decoder, context_dim_);
    vae_optimizer_ = std::make_unique<torch::optim::Adam>(
        parameters_of({encoder_.get(), reward_decoder_.get(), task_decoder_ ? task_decoder_.get() : nullptr}),
        torch::optim::AdamOptions(cfg_.vae.learning_rate));
  }
  if (act.is_box()) {
    action_low_ = torch::tensor(act.low(), torch::kFloat64).to(torch::kFloat32).view(act.shape());
    action_high_ = torch::tensor(act.high(), torch::kFloat64).to(torch::kFloat32).view(act.shape());
  }
  if (cfg_.ppo.normalize_obs) {
    state_norm_ = std::make_unique<ObservationNormalizer>(state_dim_, cfg_.ppo.clip_obs);
    if (belief_dim() > 0) belief_norm_ = std::make_unique<ObservationNormalizer>(belief_dim(), cfg_.ppo.clip_obs);
  }
  if (cfg_.ppo.normalize_reward)
    reward_norm_ = std::make_unique<RewardNormalizer>(cfg_.ppo.n_envs, cfg_.ppo.gamma, cfg_.ppo.clip_reward);
}

std::string SecbadAgent::algorithm() const { return method_name(method_); }

std::int64_t SecbadAgent::belief_dim() const {
  switch (method_) {
    case Method::secbad:
    case Method::varibad: return 2 * cfg_.vae.latent_dim;
    case Method::oracle: return context_dim_;
    case Method::none: return 0;
  }
  return 0;
}

Segmentation SecbadAgent::segmentation(bool training) const {
  if (method_ != Method::secbad) return Segmentation::none;
  return parse_segmentation(training ? cfg_.train_segmentation : cfg_.eval_segmentation);
}

YAML::Node SecbadAgent::resolved_hyperparams() const { return to_yaml(cfg_); }

torch::Tensor SecbadAgent::states(const VectorEnv& venv, bool final_obs) const {
  const auto bytes = final_obs ? venv.final_observation_bytes() : venv.observation_bytes();
  return observation_tensors(spec_.observation_space, bytes.data(), venv.num_envs(), true)[0]
      .reshape({venv.num_envs(), state_dim_})
      .to(torch::kFloat32);
}

torch::Tensor SecbadAgent::belief_inputs(VectorEnv& venv, const BeliefTracker* tracker) const {
  if (method_ == Method::none) return {};
  if (method_ == Method::oracle) {
    std::vector<float> c;
    for (std::int64_t i = 0; i < venv.num_envs(); ++i)
      for (double v : find_in_chain<ContextualEnv>(venv.env(i))->context()) c.push_back(static_cast<float>(v));
    return torch::tensor(c).reshape({venv.num_envs(), context_dim_});
  }
  return tracker->beliefs();
}

std::vector<torch::Tensor> SecbadAgent::policy_inputs(const torch::Tensor& s, const torch::Tensor& b, bool update) {
  std::vector<torch::Tensor> x{state_norm_ ? state_norm_->normalize(s, update) : s};
  if (b.defined()) x.push_back(belief_norm_ ? belief_norm_->normalize(b, update) : b);
  return x;
}

torch::Tensor SecbadAgent::one_hot_actions(const torch::Tensor& actions) const {
  if (spec_.action_space.is_discrete())
    return torch::one_hot(actions.to(torch::kInt64), action_dim_).to(torch::kFloat32);
  return actions.to(torch::kFloat32).reshape({-1, action_dim_});
}

torch::Tensor SecbadAgent::to_env_actions(const torch::Tensor& actions) const {
  if (spec_.action_space.is_discrete()) return actions.to(torch::kInt64).contiguous();
  return torch::max(torch::min(actions.to(torch::kFloat32), action_high_), action_low_).contiguous();
}

void SecbadAgent::create_envs() {
  auto envs = make_envs(setup().preset.env, cfg_.ppo.n_envs, setup().preset.env_kwargs);
  if (cfg_.ppo.vector_threads > 1) venv_ = std::make_unique<ThreadedVectorEnv>(std::move(envs), cfg_.ppo.vector_threads);
  else venv_ = std::make_unique<SyncVectorEnv>(std::move(envs));
  buffer_ = std::make_unique<RolloutBuffer>(cfg_.ppo.n_steps, cfg_.ppo.n_envs);
  if (uses_vae())
    tracker_ = std::make_unique<BeliefTracker>(encoder_, reward_decoder_, cfg_, prior_, cfg_.ppo.n_envs,
                                               segmentation(true));
}

void SecbadAgent::start_episodes() {
  const auto s = states(*venv_);
  const auto n = static_cast<std::size_t>(venv_->num_envs());
  open_.assign(n, OpenEpisode{});
  for (std::size_t i = 0; i < n; ++i) open_[i].states.push_back(s[static_cast<std::int64_t>(i)]);
  if (tracker_) tracker_->reset_all();
}

void SecbadAgent::close_episode(std::size_t i, const torch::Tensor& first_state) {
  OpenEpisode& o = open_[i];
  if (uses_vae() && !o.rewards.empty()) {
    Episode e;
    e.states = torch::stack(o.states);
    e.actions = torch::stack(o.actions);
    e.rewards = torch::tensor(o.rewards).to(torch::kFloat32);
    e.segment_start = torch::tensor(std::vector<std::int64_t>(o.starts.begin(), o.starts.end())).to(torch::kBool);
    if (!o.contexts.empty()) e.contexts = torch::stack(o.contexts);
    episodes_.add(std::move(e));
  }
  o = OpenEpisode{};
  o.states.push_back(first_state);
}

void SecbadAgent::collect_rollout(TrainingMonitor& monitor, CallbackList* callbacks, bool& stop) {
  torch::NoGradGuard no_grad;
  buffer_->reset();
  const std::int64_t n = venv_->num_envs();
  const bool oracle_starts = segmentation(true) != Segmentation::inferred;
  while (!buffer_->full()) {
    const auto s = states(*venv_);
    const auto obs = policy_inputs(s, belief_inputs(*venv_, tracker_.get()), /*update=*/true);
    auto [dist, values] = policy_->forward(obs);
    const auto actions = dist.sample();
    const auto log_probs = dist.log_prob(actions);
    const auto env_actions = to_env_actions(actions);
    std::vector<torch::Tensor> contexts;
    if (context_dim_ > 0 && uses_vae())
      for (std::int64_t i = 0; i < n; ++i)
        contexts.push_back(torch::tensor(find_in_chain<ContextualEnv>(venv_->env(i))->context()).to(torch::kFloat32));
    venv_->step(ConstBytes(static_cast<const std::byte*>(env_actions.data_ptr()), env_actions.nbytes()));

    const auto a = one_hot_actions(actions);
    const auto next = states(*venv_), finals = states(*venv_, /*final_obs=*/true);
    const auto term = venv_->terminated(), trunc = venv_->truncated();
    const auto raw_rewards = venv_->rewards();
    std::vector<std::uint8_t> changes(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) {
      const auto k = static_cast<std::size_t>(i);
      const bool done = term[k] || trunc[k];
      const bool change = venv_->env(i).info().scalar("segment_change").value_or(0.0) > 0.5;
      OpenEpisode& o = open_[k];
      o.states.push_back(done ? finals[i] : next[i]);
      o.actions.push_back(a[i]);
      o.rewards.push_back(raw_rewards[k]);
      if (!contexts.empty()) o.contexts.push_back(contexts[k]);
      o.starts.push_back(o.next_start);
      o.next_start = change;
      changes[k] = change;
      if (done) close_episode(k, next[i]);
    }
    if (tracker_) {
      std::vector<std::uint8_t> ended(static_cast<std::size_t>(n));
      for (std::size_t k = 0; k < ended.size(); ++k) ended[k] = term[k] || trunc[k];
      tracker_->observe_all(a, s, next, raw_rewards, changes, ended);
      if (!oracle_starts)  // inferred segments for the VAE
        for (std::int64_t i = 0; i < n; ++i)
          if (!ended[static_cast<std::size_t>(i)]) open_[static_cast<std::size_t>(i)].next_start = tracker_->map_length(i) == 1;
    }

    // PPO's bookkeeping: time-outs bootstrap from the final state with the belief it was acted on with.
    add_ppo_step(*buffer_, obs, actions, values, log_probs, {}, {}, raw_rewards, term, trunc, reward_norm_.get(),
                 cfg_.ppo.gamma, [&](const torch::Tensor& rows) {
                   std::vector<torch::Tensor> fin;
                   for (const auto& x : obs) fin.push_back(x.index_select(0, rows));
                   fin[0] = state_norm_ ? state_norm_->normalize(finals.index_select(0, rows), false)
                                        : finals.index_select(0, rows);
                   return policy_->value(fin);
                 });
    num_timesteps_ += n;
    const StepEpisodes episodes{term, trunc, venv_->episode_returns(), venv_->episode_lengths()};
    if (!monitor.after_step(*this, episodes, num_timesteps_, callbacks)) stop = true;
  }
  const auto last = policy_inputs(states(*venv_), belief_inputs(*venv_, tracker_.get()), /*update=*/false);
  buffer_->compute_returns_and_advantages(policy_->value(last), cfg_.ppo.gamma, cfg_.ppo.gae_lambda);
}

void SecbadAgent::update_vae(TrainingMonitor& monitor) {
  if (!uses_vae() || num_timesteps_ < cfg_.vae.pretrain_frames || episodes_.size() == 0) return;
  const bool segmented = method_ == Method::secbad;
  VaeLoss last;
  for (std::int64_t k = 0; k < cfg_.vae.updates_per_iteration; ++k) {
    const auto batch = episodes_.sample(cfg_.vae.batch_episodes, rng_);
    last = vae_loss(encoder_, reward_decoder_, task_decoder_ ? &task_decoder_ : nullptr, batch, segmented, cfg_.vae,
                    rng_);
    vae_optimizer_->zero_grad();
    last.total.backward();
    for (auto& group : vae_optimizer_->param_groups())
      clip_and_check_gradients(group.params(), cfg_.vae.max_grad_norm, last.total,
                               {"SeCBAD VAE update", vae_updates_ + 1, num_timesteps_});
    vae_optimizer_->step();
    ++vae_updates_;
  }
  Logger& log = monitor.logger();
  log.record("vae/reward_loss", last.reward);
  log.record("vae/kl", last.kl);
  if (task_decoder_) log.record("vae/task_loss", last.task);
  log.record("vae/episodes", static_cast<double>(episodes_.size()));
}

void SecbadAgent::update_policy(TrainingMonitor& monitor) {
  const PpoConfig& p = cfg_.ppo;
  const auto [lr, clip] = apply_ppo_schedule(p, *optimizer_, num_timesteps_, setup().preset.n_timesteps);
  const PpoUpdateStats stats = run_ppo_epochs(
      p, clip, *optimizer_, policy_->parameters(), [this, &p] { return buffer_->minibatches(p.batch_size); },
      [this](const RolloutBuffer::Batch& mb) { return policy_->forward(mb.obs); }, {}, n_updates_, num_timesteps_);
  stats.record(monitor.logger(), *buffer_, lr, clip);
}

void SecbadAgent::run_training(TrainingRun& run) {
  if (!venv_) {
    create_envs();
    venv_->reset(static_cast<std::uint64_t>(preset().seed));
  }
  if (open_.empty()) start_episodes();
  bool stop = false;
  while (!run.reached(num_timesteps_) && !stop) {
    collect_rollout(run.monitor(), run.callbacks(), stop);
    update_vae(run.monitor());
    update_policy(run.monitor());
    run.end_cycle(num_timesteps_);
  }
}

torch::Tensor SecbadAgent::act(const std::vector<torch::Tensor>& obs, const ActOptions& options) {
  torch::NoGradGuard no_grad;
  const auto s = obs.at(0).reshape({obs[0].size(0), state_dim_}).to(torch::kFloat32);
  torch::Tensor b;
  if (uses_vae()) {
    auto [mu, logvar] = encoder_->latent(encoder_->zero_hidden(1));
    b = torch::cat({mu, logvar}, -1).expand({s.size(0), -1});
  } else if (method_ == Method::oracle) {
    b = torch::zeros({s.size(0), context_dim_});
  }
  auto [dist, value] = policy_->forward(policy_inputs(s, b, /*update=*/false), options.action_mask);
  return to_env_actions(options.deterministic ? dist.mode() : dist.sample());
}

EvalResult SecbadAgent::evaluate(int episodes, bool deterministic, std::uint64_t seed, const EvalObserver& observer) {
  if (episodes < 1) throw UserError(fmt::format("evaluate: episodes must be >= 1, got {}", episodes));
  torch::NoGradGuard no_grad;
  const EnvPurposeScope evaluation(EnvPurpose::evaluation);  // wrappers such as record_episodes stay inert
  EvalResult result;
  diagnostics_ = {};
  std::int64_t within = 0, prior_within = 0, hyps = 0, within_eff = 0, prior_within_eff = 0;
  // With an observer (rendering), one episode at a time; otherwise all as one batch.
  const int batch = observer ? 1 : episodes;
  for (int first = 0; first < episodes; first += batch) {
    const std::int64_t n = std::min(batch, episodes - first);
    SyncVectorEnv venv(make_envs(setup().preset.env, n, setup().preset.env_kwargs));
    venv.reset(seed + static_cast<std::uint64_t>(first));
    std::unique_ptr<BeliefTracker> tracker;
    if (uses_vae())
      tracker = std::make_unique<BeliefTracker>(encoder_, reward_decoder_, cfg_, prior_, n, segmentation(false));
    std::vector<SegmentPosterior> prior_only(static_cast<std::size_t>(n), SegmentPosterior(prior_));
    std::vector<std::int64_t> true_g(static_cast<std::size_t>(n), 0), eff_g(static_cast<std::size_t>(n), 0);
    std::vector<std::vector<double>> last_context(static_cast<std::size_t>(n));
    std::vector<std::uint8_t> next_start(static_cast<std::size_t>(n), 1), done(static_cast<std::size_t>(n), 0);
    if (observer) observer(venv.env(0), first, 0);
    for (std::int64_t t = 1, left = n; left > 0; ++t) {
      const auto s = states(venv);
      auto [dist, value] = policy_->forward(policy_inputs(s, belief_inputs(venv, tracker.get()), false));
      const auto actions = deterministic ? dist.mode() : dist.sample();
      const auto env_actions = to_env_actions(actions);
      std::vector<std::vector<double>> context(static_cast<std::size_t>(n));  // in force for this step
      for (std::int64_t i = 0; i < n; ++i)
        if (const auto* c = find_in_chain<ContextualEnv>(venv.env(i))) context[static_cast<std::size_t>(i)] = c->context();
      venv.step(ConstBytes(static_cast<const std::byte*>(env_actions.data_ptr()), env_actions.nbytes()));
      if (observer) observer(venv.env(0), first, t);
      const auto a = one_hot_actions(actions);
      const auto next = states(venv);
      for (std::int64_t i = 0; i < n; ++i) {
        const auto k = static_cast<std::size_t>(i);
        if (done[k]) continue;
        if (venv.terminated()[k] || venv.truncated()[k]) {
          done[k] = 1;
          --left;
          result.returns.push_back(venv.episode_returns()[k]);
          result.lengths.push_back(venv.episode_lengths()[k]);
          continue;
        }
        const bool change = venv.env(i).info().scalar("segment_change").value_or(0.0) > 0.5;
        true_g[k] = next_start[k] ? 1 : true_g[k] + 1;
        // The same, counting only the changes that changed the context (a redraw can repeat it).
        eff_g[k] = next_start[k] && (t == 1 || context[k] != last_context[k]) ? 1 : eff_g[k] + 1;
        last_context[k] = context[k];
        next_start[k] = change;
        if (tracker) tracker->observe(i, a[i], s[i], next[i], venv.rewards()[k], change);
        if (segmentation(false) == Segmentation::inferred) {
          const std::vector<double> flat(prior_only[k].size(), 0.0);
          prior_only[k].update(flat, 0.0);
          within += std::abs(tracker->map_length(i) - true_g[k]) <= 2;
          prior_within += std::abs(prior_only[k].map_length() - true_g[k]) <= 2;
          within_eff += std::abs(tracker->map_length(i) - eff_g[k]) <= 2;
          prior_within_eff += std::abs(prior_only[k].map_length() - eff_g[k]) <= 2;
          hyps += tracker->hypotheses(i);
          ++diagnostics_.steps;
        }
      }
    }
  }
  if (diagnostics_.steps > 0) {
    const auto steps = static_cast<double>(diagnostics_.steps);
    diagnostics_.map_within_2 = static_cast<double>(within) / steps;
    diagnostics_.prior_within_2 = static_cast<double>(prior_within) / steps;
    diagnostics_.mean_hypotheses = static_cast<double>(hyps) / steps;
    diagnostics_.map_within_2_changed = static_cast<double>(within_eff) / steps;
    diagnostics_.prior_within_2_changed = static_cast<double>(prior_within_eff) / steps;
  }
  return result;
}

std::vector<std::pair<std::string, double>> SecbadAgent::eval_metrics() const {
  if (diagnostics_.steps == 0) return {};
  return {{"segment_map_within_2", diagnostics_.map_within_2},
          {"segment_prior_within_2", diagnostics_.prior_within_2},
          {"segment_hypotheses", diagnostics_.mean_hypotheses},
          {"segment_map_within_2_changed", diagnostics_.map_within_2_changed},
          {"segment_prior_within_2_changed", diagnostics_.prior_within_2_changed}};
}

void register_secbad() {
  for (Method m : {Method::secbad, Method::varibad, Method::oracle, Method::none}) {
    const char* description = m == Method::secbad    ? "SeCBAD: PPO with segment-wise beliefs over a piecewise-stable context"
                              : m == Method::varibad ? "VariBAD-style PPO with a whole-episode belief (SeCBAD's baseline)"
                              : m == Method::oracle  ? "PPO given the true context (SeCBAD's oracle baseline)"
                                                     : "PPO on the state alone, on SeCBAD's code (baseline)";
    // The inline loop only: the belief tracker and the VAE's episode records follow each
    // training env step by step on the learner's thread.
    AlgorithmCapabilities caps;
    caps.action_spaces = {SpaceKind::Discrete, SpaceKind::Box};
    caps.learning = LearningKind::on_policy;
    caps.backends = {Backend::inline_loop};
    // Checkpoints keep the networks, optimisers, normalisers, envs, the VAE's episode buffer, the
    // episodes in progress and the beliefs (episodes.pt, belief_tracker.pt): resume is exact.
    caps.exact_resume = true;
    register_algorithm(method_name(m), algorithm_entry<SecbadAgent, SecbadConfig>(description, caps, m));
  }
}

}  // namespace rlzoo::secbad
