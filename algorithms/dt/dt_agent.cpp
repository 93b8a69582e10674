#include "algorithms/dt/dt_agent.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include "rl/agent_checkpoint.h"
#include "rl/gradient_guard.h"
#include "rl/learner_device.h"
#include "rl/nets/observation.h"
#include "rl/training_run.h"
#include "algorithms/dt/dataset_episodes.h"
#include "core/env/env_purpose.h"
#include "core/registry/env_registry.h"
#include "core/torch/tensor_io.h"

namespace rlzoo::dt {

namespace {

std::vector<double> to_vector(const torch::Tensor& t) {
  const auto c = t.to(torch::kCPU, torch::kFloat64).contiguous();
  return {c.data_ptr<double>(), c.data_ptr<double>() + c.numel()};
}

}  // namespace

DtAgent::DtAgent(const AgentSetup& setup, ModelKind kind)
    : Agent(setup),
      kind_(kind),
      cfg_(parse_config<DtConfig>(setup.preset.hyperparams, setup.ctx.child("hyperparams"))),
      spec_(preset_env_spec(setup)),
      device_(learner_device(setup)),
      rng_(derive_seed(static_cast<std::uint64_t>(setup.preset.seed), 0xd7)) {
  const std::string algo = algorithm();
  if (cfg_.device != "cpu")
    spdlog::warn("{}: hyperparams.device is ignored; the preset's top-level device ('{}') decides", algo,
                 setup.preset.device);
  const Space& obs = spec_.observation_space;
  if (!obs.is_box())
    throw UserError(fmt::format("{}: the observation must be a Box, {} has {}", algo, spec_.id, obs.describe()));
  state_dim_ = obs.numel();
  const Space& act = spec_.action_space;
  discrete_ = act.is_discrete();
  if (!discrete_ && !(act.is_box() && act.is_bounded()))
    throw UserError(fmt::format("{}: actions must be Discrete or a bounded Box (predictions are tanh-bounded), "
                                "{} has {}",
                                algo, spec_.id, act.describe()));
  action_dim_ = discrete_ ? act.n() : act.numel();
  if (!discrete_) {
    action_low_ = torch::tensor(act.low()).to(torch::kFloat32);
    action_high_ = torch::tensor(act.high()).to(torch::kFloat32);
  }
  max_ep_len_ = cfg_.max_ep_len > 0 ? cfg_.max_ep_len : (spec_.max_episode_steps > 0 ? spec_.max_episode_steps : 1000);
  window_ = cfg_.context;

  torch::manual_seed(static_cast<std::uint64_t>(setup.preset.seed));
  SequenceModelOptions o;
  o.state_dim = state_dim_;
  o.action_dim = action_dim_;
  o.discrete = discrete_;
  o.max_ep_len = max_ep_len_;
  o.transformer = TransformerOptions{.width = cfg_.width,
                                     .layers = cfg_.layers,
                                     .heads = cfg_.heads,
                                     .dropout = cfg_.dropout,
                                     .activation = cfg_.activation};
  try {
    if (kind == ModelKind::dt) {
      transformer_ = DecisionTransformer(o);
      model_ = transformer_.get();
    } else {
      mlp_ = BcMlp(o, cfg_.context, cfg_.bc_hidden, cfg_.activation, cfg_.dropout);
      model_ = mlp_.get();
    }
  } catch (const UserError& e) {
    setup.ctx.child("hyperparams").fail(YAML::Node(), e.what());
  }
  model_->to(device_);
  optimizer_ = std::make_unique<torch::optim::AdamW>(
      model_->parameters(), torch::optim::AdamWOptions(cfg_.learning_rate).weight_decay(cfg_.weight_decay));
  state_mean_ = torch::zeros({state_dim_});
  state_std_ = torch::ones({state_dim_});
}

YAML::Node DtAgent::resolved_hyperparams() const { return to_yaml(cfg_); }

std::vector<torch::Tensor> DtAgent::learner_parameters() { return model_->parameters(); }

const OfflineData& DtAgent::data() {
  if (!data_) {
    data_ = std::make_unique<OfflineData>(read_offline_episodes(cfg_.dataset, spec_), discrete_);
    state_mean_ = data_->state_mean();
    state_std_ = data_->state_std();
    dataset_best_return_ = data_->best_return();
    if (cfg_.pct_traj < 1.0) data_->keep_top(cfg_.pct_traj);
    if (data_->longest_episode() > max_ep_len_)
      spdlog::warn("{}: episodes of up to {} steps, timestep embeddings for {} (later steps share the last)",
                   algorithm(), data_->longest_episode(), max_ep_len_);
  }
  return *data_;
}

void DtAgent::check_dataset() const { check_offline_dataset(cfg_.dataset, spec_); }

double DtAgent::target_return() const { return cfg_.target_return != 0.0 ? cfg_.target_return : dataset_best_return_; }

torch::Tensor DtAgent::predict(const torch::Tensor& states, const torch::Tensor& actions, const torch::Tensor& rtg,
                               const torch::Tensor& timesteps, const torch::Tensor& valid) {
  if (kind_ == ModelKind::dt) return transformer_->forward(states, actions, rtg, timesteps, valid);
  return mlp_->forward(states, valid);
}

void DtAgent::run_training(TrainingRun& run) {
  const OfflineData& d = data();
  const std::int64_t target = run.target();
  TrainingMonitor& monitor = run.monitor();
  const auto kind = kind_ == ModelKind::dt ? WindowKind::sequence : WindowKind::history;
  model_->train();
  double loss_sum = 0;
  std::int64_t loss_n = 0;
  bool stop = false;
  while (num_steps_ < target && !stop) {
    const auto w = d.windows(cfg_.batch_size, cfg_.context, cfg_.rtg_scale, max_ep_len_, rng_, kind);
    const auto states = w.states.to(device_), actions = w.actions.to(device_), rtg = w.rtg.to(device_),
               timesteps = w.timesteps.to(device_);
    auto valid = w.valid.to(device_);
    const auto pred = predict(states, actions, rtg, timesteps, valid);
    if (kind_ == ModelKind::bc) {  // bc predicts the window's last step only
      valid = torch::zeros_like(valid);
      valid.select(1, cfg_.context - 1).fill_(true);
    }
    const auto loss = action_loss(pred, actions, valid, discrete_);
    const double warm = cfg_.warmup_steps > 0
                            ? std::min(1.0, static_cast<double>(num_steps_ + 1) / static_cast<double>(cfg_.warmup_steps))
                            : 1.0;
    for (auto& group : optimizer_->param_groups())
      static_cast<torch::optim::AdamWOptions&>(group.options()).lr(cfg_.learning_rate * warm);
    optimizer_->zero_grad();
    loss.backward();
    gradient_reducer().reduce(model_->parameters());
    clip_and_check_gradients(model_->parameters(), cfg_.max_grad_norm, loss,
                             {"Decision Transformer gradient step", num_steps_ + 1, num_steps_});
    optimizer_->step();
    ++num_steps_;
    loss_sum += loss.item<double>();
    ++loss_n;
    monitor.logger().record("train/loss", loss_sum / static_cast<double>(loss_n));
    monitor.logger().record("train/learning_rate", cfg_.learning_rate * warm);
    if (!run.after_step(StepEpisodes{}, num_steps_)) stop = true;
    if (num_steps_ % preset().log_every == 0) loss_sum = 0, loss_n = 0;
    run.end_cycle(num_steps_);
    model_->train();  // a callback's evaluation switched to eval mode
  }
}

torch::Tensor DtAgent::to_env_actions(const torch::Tensor& model_actions) const {
  if (discrete_) return model_actions.to(torch::kInt64).contiguous();
  const auto y = model_actions.to(torch::kCPU, torch::kFloat32).clamp(-1.0, 1.0);
  return (action_low_ + (y + 1.0) * 0.5 * (action_high_ - action_low_)).contiguous();
}

torch::Tensor DtAgent::act(const std::vector<torch::Tensor>& obs, const ActOptions& options) {
  return act_with_state(obs, options).actions;
}

// The window state: [B, K, S + action columns + 3] rows of (normalised state, action, rtg/scale,
// timestep, valid), oldest first; the last row is the step just acted on.
ActResult DtAgent::act_with_state(const std::vector<torch::Tensor>& obs, const ActOptions& options) {
  torch::NoGradGuard no_grad;
  model_->eval();
  const auto B = obs.at(0).size(0), K = window_, S = state_dim_, Ac = action_columns();
  const auto F = S + Ac + 3;
  const auto s = (obs[0].reshape({B, S}).to(torch::kFloat32) - state_mean_) / (state_std_ + 1e-6);
  auto prev = options.recurrent_state.defined() ? options.recurrent_state.to(torch::kCPU, torch::kFloat32)
                                                : torch::zeros({B, K, F});
  if (prev.size(0) != B || prev.size(1) != K || prev.size(2) != F)
    throw UserError(fmt::format("{}: recurrent_state has shape {}, expected [{}, {}, {}] (pass back the state "
                                "act_with_state returned)",
                                algorithm(), fmt::join(prev.sizes(), ", "), B, K, F));
  if (options.episode_start.defined())
    prev = prev * options.episode_start.to(torch::kCPU).reshape({B, 1, 1}).logical_not().to(torch::kFloat32);
  const auto last = prev.select(1, K - 1);
  const auto had = last.select(1, F - 1) > 0.5;  // a step before this one in the episode
  const auto rtg = options.target_return.defined()
                       ? options.target_return.to(torch::kCPU, torch::kFloat32).reshape({B}) / cfg_.rtg_scale
                       : torch::where(had, last.select(1, S + Ac), torch::full({B}, target_return() / cfg_.rtg_scale));
  const auto t = torch::where(had, last.select(1, S + Ac + 1) + 1, torch::zeros({B}));
  const auto row = torch::cat({s, torch::zeros({B, Ac}), rtg.unsqueeze(1), t.unsqueeze(1), torch::ones({B, 1})}, 1);
  auto window = torch::cat({prev.slice(1, 1), row.unsqueeze(1)}, 1);  // [B, K, F]

  const auto states = window.slice(2, 0, S).to(device_);
  const auto actions = discrete_ ? window.select(2, S).to(torch::kInt64).to(device_) : window.slice(2, S, S + Ac).to(device_);
  const auto valid = (window.select(2, F - 1) > 0.5).to(device_);
  const auto pred = predict(states, actions, window.select(2, S + Ac).to(device_),
                            window.select(2, S + Ac + 1).to(torch::kInt64).to(device_), valid)
                        .select(1, K - 1)
                        .to(torch::kCPU);
  torch::Tensor chosen;
  if (discrete_) {
    chosen = options.deterministic ? pred.argmax(-1)
                                   : torch::multinomial(torch::softmax(pred, -1), 1).squeeze(-1);
    window.select(1, K - 1).select(1, S).copy_(chosen.to(torch::kFloat32));
  } else {
    chosen = pred;  // the deterministic tanh mean (the DT code has no stochastic head)
    window.select(1, K - 1).slice(1, S, S + Ac).copy_(chosen);
  }
  return {to_env_actions(chosen), window};
}

EvalResult DtAgent::evaluate(int episodes, bool deterministic, std::uint64_t seed, const EvalObserver& observer) {
  if (episodes < 1) throw UserError(fmt::format("evaluate: episodes must be >= 1, got {}", episodes));
  const EnvPurposeScope evaluation(EnvPurpose::evaluation);  // wrappers such as record_episodes stay inert
  use_learner_threads();
  EvalResult result;
  result.returns.resize(static_cast<std::size_t>(episodes));
  result.lengths.resize(static_cast<std::size_t>(episodes));
  last_target_ = target_return();
  // With an observer (rendering), one episode at a time; otherwise all of them as one batch.
  const int batch = observer ? 1 : episodes;
  const Space& space = spec_.observation_space;
  for (int first = 0; first < episodes; first += batch) {
    const int n = std::min(batch, episodes - first);
    std::vector<std::unique_ptr<Env>> envs;
    std::vector<std::vector<std::byte>> obs(static_cast<std::size_t>(n), std::vector<std::byte>(space.byte_size()));
    std::vector<int> live;
    for (int i = 0; i < n; ++i) {
      envs.push_back(make_env(setup().preset.env, setup().preset.env_kwargs, setup().ctx.child("env_kwargs")));
      envs.back()->reset(seed + static_cast<std::uint64_t>(first + i), obs[static_cast<std::size_t>(i)]);
      if (observer) observer(*envs.back(), first + i, 0);
      live.push_back(i);
    }
    std::vector<double> remaining(static_cast<std::size_t>(n), last_target_);
    torch::Tensor state;
    for (std::int64_t step = 1; !live.empty(); ++step) {
      std::vector<std::byte> bytes;
      std::vector<float> rem;
      for (int i : live) {
        const auto& o = obs[static_cast<std::size_t>(i)];
        bytes.insert(bytes.end(), o.begin(), o.end());
        rem.push_back(static_cast<float>(remaining[static_cast<std::size_t>(i)]));
      }
      const auto L = static_cast<std::int64_t>(live.size());
      ActOptions opts;
      opts.deterministic = deterministic;
      opts.recurrent_state = state;
      opts.target_return = torch::tensor(rem);
      ActResult out = act_with_state(observation_tensors(space, bytes.data(), L, /*copy=*/true), opts);
      const auto a = out.actions.contiguous();
      std::vector<int> still;
      std::vector<std::int64_t> keep;
      for (std::int64_t j = 0; j < L; ++j) {
        const int i = live[static_cast<std::size_t>(j)];
        Env& env = *envs[static_cast<std::size_t>(i)];
        StepResult r;
        if (discrete_) r = env.step(a[j].item<std::int64_t>(), obs[static_cast<std::size_t>(i)]);
        else r = env.step(ConstBytes(static_cast<const std::byte*>(a[j].data_ptr()), a[j].nbytes()),
                          obs[static_cast<std::size_t>(i)]);
        remaining[static_cast<std::size_t>(i)] -= r.reward;
        if (observer) observer(env, first + i, step);
        if (r.done()) {
          result.returns[static_cast<std::size_t>(first + i)] = env.info().episode_return;
          result.lengths[static_cast<std::size_t>(first + i)] = env.info().episode_length;
        } else {
          still.push_back(i);
          keep.push_back(j);
        }
      }
      live = std::move(still);
      state = out.recurrent_state.index_select(0, torch::tensor(keep, torch::kInt64));
    }
  }
  return result;
}

std::vector<std::pair<std::string, double>> DtAgent::eval_metrics() const {
  if (kind_ != ModelKind::dt) return {};
  return {{"target_return", last_target_}};
}

CheckpointWriter DtAgent::checkpoint() const {
  CheckpointWriter w = agent_checkpoint_writer(*this);
  w.add("model.pt", save_module(*model_));
  w.add("optimizer.pt", save_optimizer(*optimizer_));
  w.add_json("state.json", nlohmann::json{{"num_timesteps", num_steps_},
                                          {"rng", rng_.state()},
                                          {"state_mean", to_vector(state_mean_)},
                                          {"state_std", to_vector(state_std_)},
                                          {"dataset_best_return", dataset_best_return_}});
  return w;
}

void DtAgent::restore(const CheckpointReader& reader) {
  load_module(*model_, reader, "model.pt");
  load_optimizer(*optimizer_, reader, "optimizer.pt");
  load_generator_state(reader, "torch_rng");
  const auto state = reader.read_json("state.json");
  num_steps_ = state.at("num_timesteps").get<std::int64_t>();
  rng_.set_state(state.at("rng").get<std::string>());
  state_mean_ = torch::tensor(state.at("state_mean").get<std::vector<double>>()).to(torch::kFloat32);
  state_std_ = torch::tensor(state.at("state_std").get<std::vector<double>>()).to(torch::kFloat32);
  dataset_best_return_ = state.at("dataset_best_return").get<double>();
}

void register_dt() {
  for (ModelKind k : {ModelKind::dt, ModelKind::bc}) {
    AlgorithmCapabilities caps;
    caps.action_spaces = {SpaceKind::Discrete, SpaceKind::Box};
    caps.learning = LearningKind::offline;
    caps.backends = {Backend::inline_loop};
    caps.several_learners = true;
    caps.gpu = true;
    caps.progress_unit = "gradient steps";
    caps.blas_uses_torch_threads = true;
    AlgorithmEntry entry = algorithm_entry<DtAgent, DtConfig>(
        k == ModelKind::dt ? "Decision Transformer: return-conditioned sequence model, offline"
                           : "Behaviour cloning (MLP) offline; pct_traj < 1: %BC",
        caps, k);
    entry.create = [k](const AgentSetup& s) -> std::unique_ptr<Agent> {
      auto agent = std::make_unique<DtAgent>(s, k);
      agent->check_dataset();  // before `rlzoo train` writes anything
      return agent;
    };
    register_algorithm(k == ModelKind::dt ? "dt" : "bc", std::move(entry));
  }
}

}  // namespace rlzoo::dt
