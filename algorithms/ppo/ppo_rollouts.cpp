// PPO's experience on every backend: its acting policy (PpoActorPolicy over the actor-critic),
// the rounds the backends deliver recorded into the rollout buffer, and run_training().
#include <fmt/format.h>


#include "rl/nets/observation.h"
#include "rl/runtime/module_evaluator.h"
#include "rl/runtime/runtime_setup.h"
#include "rl/training_monitor.h"
#include "algorithms/ppo/ppo.h"
#include "algorithms/ppo/ppo_actor.h"
#include "algorithms/ppo/ppo_acting_rows.h"
#include "algorithms/ppo/ppo_loss.h"
#include "core/runtime/actor_fleet.h"
#include "core/runtime/inline_source.h"
#include "core/torch/device.h"
#include "core/torch/module_parameters.h"

namespace rlzoo {

namespace {

// A recurrent state [K, layers, B, hidden] as B rows of K * layers * hidden floats, and back:
// the rows actors keep, send through the evaluator and store in a trajectory's extras.
torch::Tensor state_rows(const torch::Tensor& state) {
  return state.movedim(2, 0).reshape({state.size(2), -1}).to(torch::kCPU, torch::kFloat32);
}
torch::Tensor state_of_rows(const torch::Tensor& rows, c10::IntArrayRef one_state_shape) {
  return rows.reshape({rows.size(0), one_state_shape[0], one_state_shape[1], one_state_shape[3]}).movedim(0, 2);
}

}  // namespace

std::size_t PpoAgent::state_floats() const {
  return recurrent() ? static_cast<std::size_t>(policy_->initial_state(1).numel()) : 0;
}

ActingPolicyImpl::ActingPolicyImpl(ActorCritic p, std::int64_t obs_numel, bool normalized)
    : policy(register_module("policy", std::move(p))) {
  if (!normalized) return;
  obs_mean = register_buffer("obs_mean", torch::zeros({obs_numel}, torch::kFloat64));
  obs_var = register_buffer("obs_var", torch::ones({obs_numel}, torch::kFloat64));
  obs_count = register_buffer("obs_count", torch::zeros({1}, torch::kFloat64));
}

ActingPolicy& PpoAgent::acting_policy() {
  if (!acting_) {
    acting_ = ActingPolicy(policy_, spec_.observation_space.numel(), obs_norm_ != nullptr);
    // Buffers come after the parameters, the module's own before its children's: with these
    // three the only ones, they are a snapshot's last tensors, where PpoActorPolicy reads them.
    RLZOO_CHECK(acting_->buffers().size() == (obs_norm_ ? 3u : 0u), "ActingPolicy: unexpected buffers");
  }
  return acting_;
}

void PpoAgent::publish(ModuleParameterStore& store, bool statistics_only) {
  acting_policy();
  if (obs_norm_) {
    torch::NoGradGuard no_grad;
    acting_->obs_mean.copy_(torch::tensor(obs_norm_->statistics().mean(), torch::kFloat64));
    acting_->obs_var.copy_(torch::tensor(obs_norm_->statistics().var(), torch::kFloat64));
    acting_->obs_count.fill_(obs_norm_->statistics().count());
  }
  if (!statistics_only) {
    store.publish(snapshot_module(*acting_));
    return;
  }
  ParameterSnapshot statistics;  // the snapshot's last three tensors, as PpoActorPolicy reads them
  for (const auto& b : acting_->buffers()) statistics.tensors.push_back(b.clone());
  store.publish(std::move(statistics));
}

std::optional<bool> PpoAgent::record_round_rows(const Trajectory& round, TrainingMonitor& monitor,
                                                CallbackList* callbacks) {
  const Space& obs_space = spec_.observation_space;
  const std::int64_t n = round.num_envs(), T = round.num_steps();
  const auto k = static_cast<std::int64_t>(round.shape.num_extras);
  const std::int64_t d = policy_->continuous() ? spec_.action_space.numel() : 1;
  const std::int64_t o = obs_space.numel();
  if (recurrent() || round.shape.mask_size != 0 || obs_space.kind() != SpaceKind::Box ||
      obs_space.dtype() != DType::Float32 || k < d + 2 + (obs_norm_ ? o : 0) ||
      reinterpret_cast<std::uintptr_t>(round.obs.data()) % alignof(float) != 0)
    return std::nullopt;
  buffer_->reset();
  std::vector<float> rewards(static_cast<std::size_t>(n)), dones(static_cast<std::size_t>(n));
  const std::vector<std::int64_t> action_shape =
      policy_->continuous() ? spec_.action_space.shape() : std::vector<std::int64_t>{};
  bool go_on = true;
  for (std::int64_t t = 0; t < T; ++t) {
    const float* raw = reinterpret_cast<const float*>(round.obs_at(t).data());
    const float* extras = round.extras_at(t).data();
    RolloutBuffer::FloatRows obs{raw, o};
    if (obs_norm_) {  // as record_round(): fold the step in, store it as the actor normalised it
      obs_norm_->update_rows(raw, static_cast<std::size_t>(n));
      obs = {extras + (k - o), k};
    }
    const auto final_obs = round.final_obs_at(t);
    ppo_step_rewards_into(round.rewards_at(t), round.terminated_at(t), round.truncated_at(t), reward_norm_.get(),
                          cfg_.gamma,
                          [&](const torch::Tensor& timeouts) {
                            torch::NoGradGuard no_grad;
                            return timeout_values(final_obs, n, timeouts, torch::Tensor());
                          },
                          rewards.data(), dones.data());
    buffer_->add_rows(obs, obs_space.shape(), {extras, k}, action_shape, !policy_->continuous(), rewards.data(),
                      dones.data(), {extras + d + 1, k}, {extras + d, k});
    num_timesteps_ += n;
    const StepEpisodes episodes{round.terminated_at(t), round.truncated_at(t), round.episode_returns_at(t),
                                round.episode_lengths_at(t)};
    if (!monitor.after_step(*this, episodes, num_timesteps_, callbacks)) go_on = false;
  }
  torch::NoGradGuard no_grad;
  const auto last = to_device(preprocess(observation_tensors(obs_space, round.next_obs.data(), n, true), false), device_);
  buffer_->compute_returns_and_advantages(continued_values(last, torch::Tensor(), torch::Tensor()).cpu(), cfg_.gamma,
                                          cfg_.gae_lambda);
  return go_on;
}

bool PpoAgent::record_round(const Trajectory& round, TrainingMonitor& monitor, CallbackList* callbacks) {
  if (const auto go_on = record_round_rows(round, monitor, callbacks)) return *go_on;
  torch::NoGradGuard no_grad;
  const Space& obs_space = spec_.observation_space;
  const std::int64_t n = round.num_envs(), T = round.num_steps();
  const auto k = static_cast<std::int64_t>(round.shape.num_extras);
  const std::int64_t d = policy_->continuous() ? spec_.action_space.numel() : 1;  // action floats
  const auto mask_size = static_cast<std::int64_t>(round.shape.mask_size);
  const bool rnn = recurrent();
  const auto one_state = rnn ? policy_->initial_state(1).sizes().vec() : std::vector<std::int64_t>{};
  const auto S = static_cast<std::int64_t>(state_floats());
  auto extras_at = [&](std::int64_t t) {
    return torch::from_blob(const_cast<float*>(round.extras_at(t).data()), {n, k}, torch::kFloat32).clone();
  };
  auto masks_at = [&](std::int64_t t) {
    if (mask_size == 0) return torch::Tensor();
    return torch::from_blob(const_cast<std::uint8_t*>(round.masks_at(t).data()), {n, mask_size}, torch::kUInt8)
        .to(torch::kBool);
  };
  // Recurrent: extras [.., episode start, state before the step] (ppo_actor.h). The update
  // re-runs the round from the actors' states; the state after each step bootstraps time-outs.
  auto starts_of = [&](const torch::Tensor& extras) { return extras.select(1, d + 2).gt(0.5); };
  auto state_of = [&](const torch::Tensor& extras) {
    return state_of_rows(extras.slice(1, d + 3, d + 3 + S), one_state).to(device_);
  };
  buffer_->reset();
  torch::Tensor extras = extras_at(0), state_after;
  if (rnn) buffer_->set_initial_state(state_of(extras));
  bool go_on = true;
  for (std::int64_t t = 0; t < T; ++t) {
    auto obs = observation_tensors(obs_space, round.obs_at(t).data(), n, true);
    if (obs_norm_) {
      // The actors began the round from the statistics published with its parameters (these,
      // unchanged since) and folded in each step before normalising it; the learner folds the
      // same steps in the same order, so its time-out bootstraps below see the statistics the
      // step was normalised with, and the next round starts from them.
      obs_norm_->update(obs[0]);
      obs[0] = extras.slice(1, k - obs_space.numel()).reshape(obs[0].sizes());  // as the actor normalised them
    }
    const auto masks = masks_at(t);
    torch::Tensor actions;
    if (policy_->continuous()) {
      std::vector<std::int64_t> shape{n};
      for (auto s : spec_.action_space.shape()) shape.push_back(s);
      actions = extras.slice(1, 0, d).reshape(shape);
    } else {
      actions = extras.select(1, 0).to(torch::kInt64);
    }
    const torch::Tensor next_extras = t + 1 < T ? extras_at(t + 1) : torch::Tensor();
    torch::Tensor starts;
    if (rnn) {
      starts = starts_of(extras);
      if (next_extras.defined()) {
        state_after = state_of(next_extras);
      } else {  // after the last step: the step again, with the parameters the actors used
        state_after = policy_
                          ->forward_sequence(to_device(obs, device_), state_of(extras), starts.view({1, n}).to(device_),
                                             masks.defined() ? masks.to(device_) : masks)
                          .state;
      }
    }
    const StepEpisodes episodes{round.terminated_at(t), round.truncated_at(t), round.episode_returns_at(t),
                                round.episode_lengths_at(t)};
    if (!record_step(obs, actions, extras.select(1, d + 1), extras.select(1, d), masks, starts, state_after,
                     round.rewards_at(t), episodes, round.final_obs_at(t), monitor, callbacks))
      go_on = false;
    extras = next_extras;
  }
  const auto last = to_device(preprocess(observation_tensors(obs_space, round.next_obs.data(), n, true), false), device_);
  torch::Tensor last_starts;
  if (rnn) {
    const auto done = [&](std::span<const std::uint8_t> flags) {
      return torch::from_blob(const_cast<std::uint8_t*>(flags.data()), {n}, torch::kUInt8).to(torch::kBool);
    };
    last_starts = done(round.terminated_at(T - 1)) | done(round.truncated_at(T - 1));
  }
  buffer_->compute_returns_and_advantages(continued_values(last, state_after, last_starts).cpu(), cfg_.gamma,
                                          cfg_.gae_lambda);
  if (rnn) {  // where the envs' sequences stand: what the inline backend goes on from, and saves
    rnn_state_ = state_after;
    episode_starts_ = last_starts;
  }
  return go_on;
}

std::shared_ptr<BatchEvaluator> PpoAgent::acting_evaluator(ActingPolicy replica, const ModuleParameterStore* store) const {
  const Space& obs_space = spec_.observation_space;
  const Space& act_space = spec_.action_space;
  const std::int64_t d = policy_->continuous() ? act_space.numel() : 1;
  const auto mask_size = static_cast<std::size_t>(spec_.has_action_mask ? act_space.n() : 0);
  const std::size_t S = state_floats();
  const auto one_state = S ? policy_->initial_state(1).sizes().vec() : std::vector<std::int64_t>{};
  auto evaluator = std::make_shared<ModuleEvaluator>(
      obs_space, mask_size, S ? 1 + S : 0, static_cast<std::size_t>(d) + 2 + S, replica.ptr(),
      // The observations arrive normalised by the actor (PpoActorPolicy) where that is configured.
      [replica, d, one_state](const std::vector<torch::Tensor>& obs, const torch::Tensor& masks,
                              const torch::Tensor& inputs) mutable {
        if (!inputs.defined()) {
          auto [dist, values] = replica->policy->forward(obs, masks);
          return sampled_rows(dist, values, d);
        }
        // One step of each row's sequence: [episode start, state] in, the next state out.
        const auto rows = inputs.size(0);
        auto out = replica->policy->forward_sequence(obs, state_of_rows(inputs.slice(1, 1), one_state),
                                                     inputs.select(1, 0).gt(0.5).view({1, rows}), masks);
        return torch::cat({sampled_rows(out.dist, out.values, d), state_rows(out.state)}, 1);
      },
      store);
  evaluator->set_row_forward([replica, d, rows_of = std::make_shared<PlainGaussianRows>()](
                                 const float* obs, std::int64_t rows, float* out) {
    return (*rows_of)(*replica->policy, obs, rows, d, out);
  });
  return evaluator;
}

std::shared_ptr<BatchEvaluator> PpoAgent::make_replica(const ModuleParameterStore& store) const {
  return acting_evaluator(keeping_torch_rng([&] {
                            return ActingPolicy(ActorCritic(spec_.observation_space, spec_.action_space, cfg_.policy),
                                                spec_.observation_space.numel(), cfg_.normalize_obs);
                          }),
                          &store);
}

PpoActorLayout PpoAgent::actor_layout() const {
  PpoActorLayout layout;
  layout.mask_size = static_cast<std::size_t>(spec_.has_action_mask ? spec_.action_space.n() : 0);
  layout.state_floats = state_floats();
  if (obs_norm_) {
    layout.normalized_obs = spec_.observation_space.numel();
    layout.clip_obs = obs_norm_->clip();
    layout.obs_epsilon = obs_norm_->epsilon();
  }
  return layout;
}

std::optional<ActorRole> PpoAgent::actor_role() {
  const Space& act_space = spec_.action_space;
  const std::int64_t d = policy_->continuous() ? act_space.numel() : 1;
  const PpoActorLayout layout = actor_layout();
  ActorRole role;
  role.shape = TrajectoryShape{cfg_.n_steps,
                               setup().preset.runtime.envs_per_actor,
                               spec_.observation_space.byte_size(),
                               act_space.byte_size(),
                               layout.extras(static_cast<std::size_t>(d)),
                               layout.mask_size};
  role.on_policy = true;
  role.make_policy = [this, act_space, layout](const ModuleParameterStore& store, int) -> std::unique_ptr<ActorPolicy> {
    return std::make_unique<PpoActorPolicy>(make_replica(store), store, act_space, layout, /*wait_for_rounds=*/false);
  };
  return role;
}

void PpoAgent::run_training(TrainingRun& run) {
  const Backend backend = run.backend();
  if (backend == Backend::inline_loop && !venv_) {
    create_envs();
    venv_->reset(static_cast<std::uint64_t>(preset().seed));
    reset_recurrent_state();
  }
  if (!buffer_ || buffer_->n_envs() != rollout_envs())
    buffer_ = std::make_unique<RolloutBuffer>(cfg_.n_steps, rollout_envs());
  const std::int64_t target = run.target();
  const Space& act_space = spec_.action_space;
  const PpoActorLayout layout = actor_layout();
  // Inline, the actor reads the learner's own network and the store carries only the
  // observation statistics; actor threads and processes replicate the network from it.
  const bool inline_loop = backend == Backend::inline_loop;

  // Declared before the fleet: actors use it until the fleet has joined.
  ModuleParameterStore store;
  publish(store, inline_loop);  // version 1: what round 0 is collected with
  auto learn_round = [&](const Trajectory& round) {
    RLZOO_CHECK(round.policy_version == store.version(), "PPO: a rollout was collected with stale parameters");
    const bool go_on = record_round(round, run.monitor(), run.callbacks());
    update(run.monitor());
    publish(store, inline_loop);  // the next rollout waits for this
    return go_on && num_timesteps_ < target;
  };

  if (inline_loop) {
    PpoActorPolicy policy(acting_evaluator(acting_policy(), nullptr), store, act_space, layout);
    InlineSourceOptions options;
    options.steps_per_round = cfg_.n_steps;
    if (recurrent()) {  // the envs' sequences go on from where the last rollout left them
      const auto rows = state_rows(rnn_state_).contiguous();
      policy.set_recurrent_state({rows.data_ptr<float>(), static_cast<std::size_t>(rows.numel())});
      const auto starts = episode_starts_.to(torch::kUInt8).contiguous();
      options.episode_starts.assign(starts.data_ptr<std::uint8_t>(), starts.data_ptr<std::uint8_t>() + starts.numel());
    }
    InlineTrajectorySource source(*venv_, policy, std::move(options));
    return run_inline_training(*this, run, source, learn_round);
  }
  if (backend == Backend::processes) return run_remote_training(*this, run, *actor_role(), store, learn_round);
  ActorThreadsSetup actors;
  actors.steps_per_trajectory = cfg_.n_steps;
  actors.make_replica = [&] { return make_replica(store); };
  actors.make_policy = [&](std::shared_ptr<BatchEvaluator> evaluator, int) -> std::unique_ptr<ActorPolicy> {
    return std::make_unique<PpoActorPolicy>(std::move(evaluator), store, act_space, layout);
  };
  run_threads_training(*this, run, store, actors, learn_round);
}

}  // namespace rlzoo
