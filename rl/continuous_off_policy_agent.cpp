#include "rl/continuous_off_policy_agent.h"

#include <fmt/format.h>

#include "rl/agent_checkpoint.h"
#include "rl/algorithm_registry.h"
#include "rl/buffers/replay_rounds.h"
#include "rl/nets/observation.h"
#include "rl/learner_device.h"
#include "rl/runtime/runtime_setup.h"
#include "rl/training_monitor.h"
#include "rl/training_run.h"
#include "core/registry/env_registry.h"
#include "core/runtime/inline_source.h"
#include "core/torch/tensor_io.h"

namespace rlzoo {

namespace {
// A stream id per algorithm (FNV-1a of its id): the acting draws apart from the envs' seeds.
std::uint64_t stream_of(const std::string& id, std::uint64_t salt) {
  std::uint64_t h = 1469598103934665603ull ^ salt;
  for (char c : id) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  return h;
}
constexpr std::uint64_t kInlineActing = 1, kActorActing = 2;
}  // namespace

AlgorithmCapabilities continuous_off_policy_capabilities() {
  AlgorithmCapabilities caps;
  caps.observation_spaces = {SpaceKind::Box, SpaceKind::Discrete, SpaceKind::MultiDiscrete, SpaceKind::MultiBinary,
                             SpaceKind::Dict};  // the shared encoders
  caps.action_spaces = {SpaceKind::Box};
  caps.learning = LearningKind::off_policy;
  caps.backends = {Backend::inline_loop, Backend::threads};
  caps.exportable = true;  // the deterministic actor (PolicyExport::Network::tanh_actor)
  return caps;
}

ContinuousOffPolicyAgent::ContinuousOffPolicyAgent(const AgentSetup& setup, const std::string& id)
    : Agent(setup),
      spec_(preset_env_spec(setup)),  // a Box action space: checked against the capabilities
      scaling_(spec_.action_space, id),
      rng_(derive_seed(static_cast<std::uint64_t>(setup.preset.seed), stream_of(id, kInlineActing))),
      id_(id) {
  device_ = learner_device(setup);
}

void ContinuousOffPolicyAgent::set_settings(const OffPolicySettings& settings) {
  settings_ = settings;
  settings_.gsde.per_episode = settings.train_freq.episodes;
  const RuntimeConfig& rt = setup().preset.runtime;
  if (rt.enabled() && settings.n_envs != 1 && settings.n_envs != rt.total_envs())
    setup().ctx.child("hyperparams.n_envs")
        .fail(setup().preset.hyperparams["n_envs"],
              fmt::format("with runtime.actors the envs are actors x envs_per_actor = {}; leave n_envs out or set it to that",
                          rt.total_envs()));
  if (rt.enabled() && settings.train_freq.episodes && rt.total_envs() != 1)
    setup().ctx.child("hyperparams.train_freq")
        .fail(setup().preset.hyperparams["train_freq"],
              fmt::format("[{}, episode] needs one env; runtime.actors x envs_per_actor = {}", settings.train_freq.n,
                          rt.total_envs()));
}

std::int64_t ContinuousOffPolicyAgent::buffer_envs() const {
  const RuntimeConfig& rt = setup().preset.runtime;
  return rt.enabled() ? rt.total_envs() : settings_.n_envs;
}

void ContinuousOffPolicyAgent::ensure_buffer() {
  if (buffer_) return;
  buffer_ =
      std::make_unique<ReplayBuffer>(spec_.observation_space, spec_.action_space, settings_.buffer_size, buffer_envs());
}

ReplaySample ContinuousOffPolicyAgent::sample() const {
  return buffer_->sample(settings_.batch_size, settings_.gamma, settings_.n_step);
}

ReplayRowTensors ContinuousOffPolicyAgent::sample_rows() const {
  const ReplaySample s = sample();
  return {float_observation_rows(spec_.observation_space, s.obs, "sample_rows"),
          float_observation_rows(spec_.observation_space, s.next_obs, "sample_rows"),
          unit_actions(s.actions).to(torch::kFloat32).contiguous(),
          s.rewards.contiguous(),
          s.discounts.contiguous(),
          s.terminated.contiguous(),
          s.obs,
          s.next_obs};
}

bool ContinuousOffPolicyAgent::learn_from_round(const Trajectory& round, std::int64_t end, TrainingMonitor& monitor,
                                                CallbackList* callbacks) {
  ensure_buffer();
  std::int64_t finished = 0;
  const StoredRound stored = store_round(*buffer_, round, end, num_timesteps_, id_, [&](const StepEpisodes& episodes) {
    for (std::size_t i = 0; i < episodes.terminated.size(); ++i) finished += episodes.terminated[i] || episodes.truncated[i];
    return monitor.after_step(*this, episodes, num_timesteps_, callbacks);
  });
  // SB3 does not train after a callback asked to stop.
  if (stored.stopped) return false;
  std::int64_t collected = stored.collected;
  if (settings_.train_freq.episodes) {
    phase_steps_ += stored.collected;
    phase_episodes_ += finished;
    // SB3 would finish the last episode past the budget; here the last phase trains on what
    // the budget left.
    if (phase_episodes_ < settings_.train_freq.n && num_timesteps_ < end) return true;
    collected = phase_steps_;
    phase_steps_ = phase_episodes_ = 0;
  }
  if (num_timesteps_ > settings_.learning_starts)
    train(settings_.gradient_steps > 0 ? settings_.gradient_steps : collected * buffer_->n_envs(), monitor);
  return true;
}

void ContinuousOffPolicyAgent::run_training(TrainingRun& run) {
  ensure_buffer();
  const std::int64_t end = run.target();
  if (num_timesteps_ >= end) return;
  auto learn_round = [&](const Trajectory& round) {
    return learn_from_round(round, end, run.monitor(), run.callbacks()) && num_timesteps_ < end;
  };
  ContinuousActingSchedule schedule;
  schedule.start_timesteps = num_timesteps_;
  schedule.learning_starts = settings_.learning_starts;
  schedule.total_envs = buffer_->n_envs();
  // Episodes end where they end: one-step rounds, the phase kept by learn_from_round.
  const std::int64_t train_freq = settings_.train_freq.episodes ? 1 : settings_.train_freq.n;

  if (run.backend() == Backend::inline_loop) {
    if (!venv_) {
      venv_ = make_vector_env(preset().env, settings_.n_envs, 1, preset().env_kwargs);
      venv_->reset(static_cast<std::uint64_t>(preset().seed));
    }
    schedule.shared_stream = &rng_;
    ContinuousActorPolicy policy(acting_evaluator(nullptr), scaling_, settings_.acting, settings_.noise, schedule,
                                 settings_.gsde);
    const std::int64_t n_envs = venv_->num_envs();
    InlineSourceOptions options;
    options.steps_per_round = train_freq;
    options.round_steps = [&] { return std::min(train_freq, (end - num_timesteps_ + n_envs - 1) / n_envs); };
    InlineTrajectorySource source(*venv_, policy, std::move(options));
    return run_inline_training(*this, run, source, learn_round);
  }

  ModuleParameterStore store;  // declared before the fleet: the actors use it until it has joined
  store.publish(snapshot_module(acting_network()));
  schedule.seed = derive_seed(static_cast<std::uint64_t>(preset().seed) + static_cast<std::uint64_t>(num_timesteps_),
                              stream_of(id_, kActorActing));
  ActorThreadsSetup actors;
  actors.steps_per_trajectory = train_freq;
  actors.make_replica = [&] { return keeping_torch_rng([&] { return acting_evaluator(&store); }); };
  actors.make_policy = [&](std::shared_ptr<BatchEvaluator> evaluator, int) -> std::unique_ptr<ActorPolicy> {
    return std::make_unique<ContinuousActorPolicy>(std::move(evaluator), scaling_, settings_.acting, settings_.noise,
                                                   schedule, settings_.gsde);
  };
  run_threads_training(*this, run, store, actors, [&](const Trajectory& round) {
    const std::int64_t updates = n_updates_;
    const bool go_on = learn_round(round);
    if (n_updates_ != updates) store.publish(snapshot_module(acting_network()));
    return go_on;
  });
}

CheckpointWriter ContinuousOffPolicyAgent::checkpoint() const {
  CheckpointWriter w = agent_checkpoint_writer(*this);
  save_networks(w);
  w.add_json("state.json", nlohmann::json{{"num_timesteps", num_timesteps_},
                                          {"n_updates", n_updates_},
                                          {"acting_rng", rng_.state()},
                                          {"phase_steps", phase_steps_},
                                          {"phase_episodes", phase_episodes_}});
  if (buffer_ && setup().preset.checkpoint.save_replay_buffer) buffer_->save(w, "replay_buffer.pt");
  add_training_envs(w, venv_.get());
  return w;
}

void ContinuousOffPolicyAgent::restore(const CheckpointReader& reader) {
  load_networks(reader);
  load_generator_state(reader, "torch_rng");
  const auto state = reader.read_json("state.json");
  try {
    num_timesteps_ = state.at("num_timesteps").get<std::int64_t>();
    n_updates_ = state.at("n_updates").get<std::int64_t>();
    rng_.set_state(state.at("acting_rng").get<std::string>());
    phase_steps_ = state.value("phase_steps", std::int64_t{0});
    phase_episodes_ = state.value("phase_episodes", std::int64_t{0});
  } catch (const nlohmann::json::exception& e) {
    throw UserError(fmt::format("{}: bad {} state: {}", (reader.dir() / "state.json").string(), id_, e.what()));
  }
  if (reader.has("replay_buffer.pt")) {
    ensure_buffer();
    buffer_->load(reader, "replay_buffer.pt");
  }
  // Runtime actors make their envs when learn() starts (reset from seed + num_timesteps).
  if (setup().preset.runtime.enabled()) return;
  venv_ = make_vector_env(setup().preset.env, settings_.n_envs, 1, setup().preset.env_kwargs);
  restore_training_envs(*venv_, reader,
                        static_cast<std::uint64_t>(setup().preset.seed) + static_cast<std::uint64_t>(num_timesteps_));
}

}  // namespace rlzoo
