#include "algorithms/pg/pg_agent.h"

#include <filesystem>
#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/platform/thread_priority.h"
#include "rl/agent_checkpoint.h"
#include "rl/gradient_guard.h"
#include "rl/learner_device.h"
#include "rl/runtime/runtime_setup.h"
#include "rl/training_run.h"
#include "core/registry/env_registry.h"
#include "core/runtime/thread_group.h"
#include "core/torch/module_parameters.h"
#include "core/torch/tensor_io.h"
#include "core/torch/threads.h"

namespace rlzoo::pg {

namespace {

const char* estimator_name(Estimator e) {
  switch (e) {
    case Estimator::Gpomdp: return "gpomdp";
    case Estimator::Svrpg: return "svrpg";
    case Estimator::SrvrPg: return "srvrpg";
    case Estimator::StormPg: return "storm_pg";
  }
  return "?";
}

}  // namespace

PgAgent::PgAgent(const AgentSetup& setup, Estimator estimator)
    : Agent(setup),
      estimator_(estimator),
      cfg_(parse_config<PgConfig>(setup.preset.hyperparams, setup.ctx.child("hyperparams"))),
      spec_(preset_env_spec(setup)),
      baseline_(cfg_.baseline == "none" ? Baseline::None : Baseline::Average),
      seeds_(derive_seed(static_cast<std::uint64_t>(setup.preset.seed), 0x9e)) {
  torch::manual_seed(static_cast<std::uint64_t>(setup.preset.seed));
  if (cfg_.fixed_std && !spec_.action_space.is_box())
    setup.ctx.child("hyperparams.fixed_std")
        .fail(setup.preset.hyperparams["fixed_std"],
              "applies to Gaussian policies (Box actions); " + spec_.id + "'s actions are " + spec_.action_space.describe());
  policy_ = make_policy();
  previous_ = make_policy();
  snapshot_ = make_policy();
  optimizer_ = std::make_unique<torch::optim::Adam>(
      policy_->parameters(),
      torch::optim::AdamOptions(cfg_.learning_rate).betas({cfg_.adam_beta1, cfg_.adam_beta2}));
  // On actor threads each iteration's trajectories are split over the actors: the runtime's
  // per-actor env slices, shared inference server and trajectory queue do not apply.
  const RuntimeConfig& rt = setup.preset.runtime;
  const ConfigContext rt_ctx = setup.ctx.child("runtime");
  // (AgentSetup keeps no YAML: the errors name the file, or the --set flag, and the key.)
  if (rt.envs_per_actor != 1)
    rt_ctx.child("envs_per_actor").fail(YAML::Mark::null_mark(), fmt::format("{} splits each iteration's batch of trajectories over "
                                                             "the actor threads; envs_per_actor does not apply (leave it at 1)",
                                                             estimator_name(estimator)));
  if (rt.inference.max_batch > 0)
    rt_ctx.child("inference.max_batch").fail(YAML::Mark::null_mark(), fmt::format("{}'s actors act with their own policy replicas; "
                                                                  "the shared inference server does not apply",
                                                                  estimator_name(estimator)));
  if (horizon() <= 0)
    setup.ctx.child("hyperparams.horizon")
        .fail(setup.preset.hyperparams["horizon"], "the env has no time limit: set a horizon > 0");
}

PgPolicy PgAgent::make_policy() const {
  return PgPolicy(spec_.observation_space, spec_.action_space, cfg_.policy, cfg_.fixed_std);
}

std::string PgAgent::algorithm() const { return estimator_name(estimator_); }

std::int64_t PgAgent::horizon() const { return cfg_.horizon > 0 ? cfg_.horizon : spec_.max_episode_steps; }

YAML::Node PgAgent::resolved_hyperparams() const { return to_yaml(cfg_); }

torch::Tensor PgAgent::act(const std::vector<torch::Tensor>& obs, const ActOptions& options) {
  torch::NoGradGuard no_grad;
  auto a = policy_->act(obs.at(0).to(torch::kFloat32), options.deterministic);
  if (!policy_->continuous()) return a;
  const Space& s = spec_.action_space;
  const auto low = torch::tensor(s.low(), torch::kFloat64).to(torch::kFloat32);
  const auto high = torch::tensor(s.high(), torch::kFloat64).to(torch::kFloat32);
  return torch::max(torch::min(a, high), low);
}

std::optional<PolicyExport> PgAgent::export_policy() const {
  return policy_export_of(PolicyExport::Network::mlp_policy, spec_.observation_space, spec_.action_space,
                          cfg_.policy, *policy_);
}

double PgAgent::adam_step(const torch::Tensor& g) {
  const double lr =
      cfg_.learning_rate * std::pow(cfg_.lr_decay, static_cast<double>(iteration_ / cfg_.lr_decay_every));
  for (auto& group : optimizer_->param_groups()) static_cast<torch::optim::AdamOptions&>(group.options()).lr(lr);
  std::int64_t offset = 0;
  for (auto& p : policy_->parameters()) {
    // Ascent on J: Adam descends, so it is given -g.
    p.mutable_grad() = -g.narrow(0, offset, p.numel()).view(p.sizes()).to(torch::kFloat32);
    offset += p.numel();
  }
  optimizer_->step();
  return lr;
}

TrajectoryBatch PgAgent::sample(std::int64_t n) {
  auto make = [this] { return make_env(preset().env, preset().env_kwargs); };
  if (sampling_actors_ == 0) return sample_trajectories(*policy_, envs_, make, n, horizon(), seeds_);
  const auto actors = static_cast<std::size_t>(sampling_actors_);
  std::vector<std::uint64_t> resets(static_cast<std::size_t>(n));
  for (auto& s : resets) s = seeds_.next_u64();
  while (replicas_.size() < actors) {
    replicas_.push_back(keeping_torch_rng([&] { return make_policy(); }));
    actor_envs_.emplace_back();
  }
  const ParameterSnapshot weights = snapshot_module(*policy_);
  std::vector<TrajectoryBatch> parts(actors);
  ThreadGroup group;
  std::size_t first = 0;
  for (std::size_t a = 0; a < actors; ++a) {
    const std::size_t count = resets.size() / actors + (a < resets.size() % actors ? 1 : 0);
    const std::span<const std::uint64_t> share(resets.data() + first, count);
    first += count;
    if (count == 0) continue;
    load_snapshot(*replicas_[a], weights);
    group.spawn(fmt::format("pg-actor-{}", a), [&, a, share](const StopSource&) {
      raise_current_thread_nice(preset().runtime.actor_nice);
      use_one_torch_thread();
      parts[a] = sample_trajectories(*replicas_[a], actor_envs_[a], make, share, horizon());
    });
  }
  group.join();  // rethrows an actor's error
  return concatenate(parts);
}

void PgAgent::iterate(TrainingMonitor* monitor) {
  const bool gpomdp = estimator_ == Estimator::Gpomdp;
  const bool restart = !gpomdp && (estimator_ == Estimator::StormPg ? iteration_ == 0
                                                                    : iteration_ % cfg_.epoch_length == 0);
  const std::int64_t n = restart ? cfg_.initial_batch : cfg_.batch_size;
  const TrajectoryBatch batch = sample(n);
  const torch::Tensor fresh = gpomdp_gradient(*policy_, batch, cfg_.gamma, baseline_);
  double iw_mean = 1.0, iw_max = 1.0;
  if (gpomdp || restart) {
    g_ = fresh;
    if (estimator_ == Estimator::Svrpg) {
      set_flat_parameters(*snapshot_, flat_parameters(*policy_));
      mu_ = fresh;
    }
  } else {
    PgPolicyImpl& reference = estimator_ == Estimator::Svrpg ? *snapshot_ : *previous_;
    const auto w = importance_weights(batch_log_probs(reference, batch), batch_log_probs(*policy_, batch), batch.mask,
                                      cfg_.iw_clip);
    const double steps = batch.mask.sum().item<double>();
    iw_mean = (w.sum() / steps).item<double>();
    iw_max = w.max().item<double>();
    const torch::Tensor correction = gpomdp_gradient(reference, batch, cfg_.gamma, baseline_, w);
    if (estimator_ == Estimator::StormPg) g_ = storm_update(fresh, correction, g_, cfg_.alpha);
    else if (estimator_ == Estimator::SrvrPg) g_ = sarah_update(fresh, correction, g_);
    else g_ = svrg_update(fresh, correction, mu_);
  }
  if (estimator_ == Estimator::StormPg || estimator_ == Estimator::SrvrPg)
    set_flat_parameters(*previous_, flat_parameters(*policy_));
  check_finite_gradient(g_, {"policy-gradient iteration", iteration_ + 1, num_timesteps_});
  const double lr = adam_step(g_);
  ++iteration_;
  trajectories_ += batch.size();
  num_timesteps_ += batch.steps();
  double mean_return = 0;
  for (double r : batch.returns) mean_return += r;
  mean_return /= static_cast<double>(batch.size());
  const double norm = g_.norm().item<double>();
  if (monitor) {
    auto& log = monitor->logger();
    log.record("train/iw_mean", iw_mean);
    log.record("train/iw_max", iw_max);
    log.record("train/grad_norm", norm);
    log.record("train/learning_rate", lr);
    log.record("time/trajectories", static_cast<double>(trajectories_));
    log.record("rollout/batch_return_mean", mean_return);
  }
  if (!log_dir().empty()) {
    std::filesystem::create_directories(log_dir());
    const auto path = std::filesystem::path(log_dir()) / "curve.csv";
    const bool fresh_file = !std::filesystem::exists(path);
    std::ofstream out(path, std::ios::app);
    if (fresh_file) out << "iteration,trajectories,env_steps,batch_return_mean,iw_mean,iw_max,grad_norm,learning_rate\n";
    out << fmt::format("{},{},{},{},{},{},{},{}\n", iteration_, trajectories_, num_timesteps_, mean_return, iw_mean,
                       iw_max, norm, lr);
  }
  last_batch_returns_ = batch.returns;
  last_batch_lengths_ = batch.lengths;
}

void PgAgent::run_training(TrainingRun& run) {
  sampling_actors_ = run.backend() == Backend::threads ? std::max(1, preset().runtime.actors) : 0;
  while (!run.reached(num_timesteps_) && (cfg_.max_trajectories == 0 || trajectories_ < cfg_.max_trajectories)) {
    iterate(&run.monitor());
    const std::vector<std::uint8_t> done(last_batch_returns_.size(), 1), cut(last_batch_returns_.size(), 0);
    // Each actor that sampled a share of the batch (every one, unless the batch had fewer trajectories).
    const auto shares = std::min<std::size_t>(static_cast<std::size_t>(sampling_actors_), last_batch_returns_.size());
    for (std::size_t a = 0; a < shares; ++a) run.count_actor_batch();
    const bool go_on = run.after_step(StepEpisodes{done, cut, last_batch_returns_, last_batch_lengths_}, num_timesteps_);
    run.end_cycle(num_timesteps_);
    if (!go_on) break;
  }
  sampling_actors_ = 0;
}

CheckpointWriter PgAgent::checkpoint() const {
  CheckpointWriter w = agent_checkpoint_writer(*this);
  w.add("policy.pt", save_module(*policy_));
  w.add("previous.pt", save_module(*previous_));
  w.add("snapshot.pt", save_module(*snapshot_));
  w.add("optimizer.pt", save_optimizer(*optimizer_));
  TensorMap estimates;
  if (g_.defined()) estimates["g"] = g_;
  if (mu_.defined()) estimates["mu"] = mu_;
  w.add("estimates.pt", save_tensors(estimates));
  w.add_json("state.json", nlohmann::json{{"num_timesteps", num_timesteps_},
                                          {"trajectories", trajectories_},
                                          {"iteration", iteration_},
                                          {"seeds", seeds_.state()}});
  return w;
}

void PgAgent::restore(const CheckpointReader& reader) {
  load_module(*policy_, reader, "policy.pt");
  load_module(*previous_, reader, "previous.pt");
  load_module(*snapshot_, reader, "snapshot.pt");
  load_optimizer(*optimizer_, reader, "optimizer.pt");
  load_generator_state(reader, "torch_rng");
  auto estimates = load_tensors(reader, "estimates.pt");
  if (estimates.count("g")) g_ = estimates.at("g");
  if (estimates.count("mu")) mu_ = estimates.at("mu");
  const auto state = reader.read_json("state.json");
  num_timesteps_ = state.at("num_timesteps").get<std::int64_t>();
  trajectories_ = state.at("trajectories").get<std::int64_t>();
  iteration_ = state.at("iteration").get<std::int64_t>();
  seeds_.set_state(state.at("seeds").get<std::string>());
}

void register_pg() {
  const std::vector<std::pair<Estimator, const char*>> all = {
      {Estimator::Gpomdp, "GPOMDP policy gradient (per-timestep baseline), the family's plain estimator"},
      {Estimator::Svrpg, "SVRPG: stochastic variance-reduced policy gradient (snapshots, importance weights)"},
      {Estimator::SrvrPg, "SRVR-PG: SARAH-type recursive variance-reduced policy gradient with restarts"},
      {Estimator::StormPg, "STORM-PG: recursive momentum estimator, one large batch then mini-batches"}};
  for (const auto& [e, description] : all) {
    const Estimator est = e;
    AlgorithmCapabilities caps;
    caps.action_spaces = {SpaceKind::Discrete, SpaceKind::Box};
    caps.learning = LearningKind::on_policy;
    // Inline, or actor threads that sample each iteration's batch with the current policy (all
    // four estimators allow it: every trajectory of an iteration comes from theta_t, and the
    // importance weights against the previous or snapshot policy are computed afterwards by
    // the learner). Processes are not offered: an iteration waits for its whole batch, so a
    // fleet would only add latency to it.
    caps.backends = {Backend::inline_loop, Backend::threads};
    caps.exportable = true;
    register_algorithm(estimator_name(est), algorithm_entry<PgAgent, PgConfig>(description, caps, est));
  }
}

}  // namespace rlzoo::pg
