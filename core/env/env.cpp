#include "core/env/env.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/spaces/space_leaves.h"

namespace rlzoo {

void Info::set_scalar(const char* name, double value) {
  for (int i = 0; i < num_scalars; ++i)
    if (std::strcmp(scalars[i].name, name) == 0) {
      scalars[i].value = value;
      return;
    }
  RLZOO_CHECK(num_scalars < kMaxScalars, "too many info scalars");
  scalars[num_scalars++] = {name, value};
}

std::optional<double> Info::scalar(std::string_view name) const {
  for (int i = 0; i < num_scalars; ++i)
    if (name == scalars[i].name) return scalars[i].value;
  return std::nullopt;
}

namespace {

bool has_float_leaf(const Space& s) {
  if (s.kind() == SpaceKind::Dict) {
    for (const auto& f : s.fields())
      if (has_float_leaf(*f.space)) return true;
    return false;
  }
  return s.is_box() && dtype_is_floating(s.dtype());
}

}  // namespace

Env::Env(EnvSpec spec) : spec_(std::move(spec)) {
  derive_step_plan();
  if (spec_.num_agents < 1) throw UserError(fmt::format("env {}: num_agents must be >= 1", spec_.id));
  if (spec_.max_episode_steps < 0) throw UserError(fmt::format("env {}: max_episode_steps must be >= 0", spec_.id));
  if (spec_.has_action_mask) {
    if (!spec_.action_space.is_discrete())
      throw UserError(fmt::format("env {}: action masks need a Discrete action space, not {}", spec_.id,
                                  spec_.action_space.describe()));
    mask_.assign(static_cast<std::size_t>(spec_.action_space.n()), 1);
  }
  if (spec_.num_agents == 1) {
    agent_rewards_ = std::span<double>(&single_agent_reward_, 1);
  } else {
    agent_reward_storage_.assign(static_cast<std::size_t>(spec_.num_agents), 0.0);
    agent_rewards_ = agent_reward_storage_;
  }
  agent_rewards_view_ = agent_rewards_;
  mask_view_ = mask_;
  set_detour(kMasked, !mask_view_.empty());
}

Env::~Env() = default;

void Env::derive_step_plan() {
  const Space& os = spec_.observation_space;
  const Space& as = spec_.action_space;
  obs_bytes_ = os.byte_size();
  finite_check_ = FiniteCheck::None;
  finite_count_ = 0;
  if (os.is_box() && os.dtype() == DType::Float32) {
    finite_check_ = FiniteCheck::Float32;
  } else if (os.is_box() && os.dtype() == DType::Float64) {
    finite_check_ = FiniteCheck::Float64;
  } else if (has_float_leaf(os)) {
    finite_check_ = FiniteCheck::Leaves;
  }
  if (finite_check_ == FiniteCheck::Float32 || finite_check_ == FiniteCheck::Float64)
    finite_count_ = static_cast<std::size_t>(os.numel());
  const bool discrete = as.kind() == SpaceKind::Discrete && as.byte_size() == sizeof(std::int64_t);
  action_start_ = discrete ? as.start() : 0;
  action_n_ = discrete ? as.n() : 0;
  action_floats_ = as.is_box() && as.dtype() == DType::Float32 ? static_cast<std::size_t>(as.numel()) : 0;
  set_steps_within_limit();
  step_plan_stale_ = false;
}

namespace {
// Dict observations, leaf by leaf: out of line, so that the common case stays a leaf function.
[[gnu::noinline]] bool leaves_are_finite(const Space& space, ConstBytes obs) { return all_finite(space, obs); }
}  // namespace

bool Env::observation_is_finite_slow(ConstBytes obs) const {
  switch (finite_check_) {
    case FiniteCheck::None: return true;
    case FiniteCheck::Float32: return float32s_are_finite(reinterpret_cast<const float*>(obs.data()), finite_count_);
    case FiniteCheck::Float64: return float64s_are_finite(reinterpret_cast<const double*>(obs.data()), finite_count_);
    case FiniteCheck::Leaves: return leaves_are_finite(spec_.observation_space, obs);
  }
  return true;
}

void Env::step_run(StepRun& run) { step_run_virtual(run); }

template <bool kCheckObservation>
StepResult Env::step_detoured(ConstBytes action, Bytes obs) {
  StepResult r;
  step_body<kCheckObservation, true>(action, obs, r, [](Env& e, ConstBytes a, Bytes o) { return e.do_step(a, o); });
  return r;
}
template StepResult Env::step_detoured<true>(ConstBytes, Bytes);
template StepResult Env::step_detoured<false>(ConstBytes, Bytes);

void Env::step_run_virtual(StepRun& run) {
  step_run_loop<Env>(run, [](Env& e, ConstBytes a, Bytes o) { return e.do_step(a, o); }, NoPairStep{});
}

void Env::check_observation(ConstBytes obs) const {
  RLZOO_CHECK(obs.size() == obs_bytes_, fmt::format("env {}: observation to check has {} bytes, the space needs {}",
                                                    spec_.id, obs.size(), obs_bytes_));
  if (!observation_is_finite(obs)) check_finite_observation(obs, elapsed_);
}

void Env::set_steps_within_limit() {
  // Without a limit (0), 0 - 1 wraps to the largest value.
  steps_within_limit_ = static_cast<std::uint64_t>(spec_.max_episode_steps) - 1;
}

void Env::set_max_episode_steps(std::int64_t steps) {
  if (steps < 0) throw UserError(fmt::format("env {}: max_episode_steps must be >= 0, got {}", spec_.id, steps));
  spec_.max_episode_steps = steps;
  set_steps_within_limit();
}

void Env::forward_views_to(const Env& inner) {
  set_detour(kWrapper, true);
  agent_rewards_view_ = inner.agent_rewards_view_;
  mask_view_ = inner.mask_view_;
  set_detour(kMasked, !mask_view_.empty());
  candidates_view_ = inner.candidates_view_;
  stats_source_ = inner.stats_source_;
}

const Info& Env::reset(std::optional<std::uint64_t> seed, Bytes obs) {
  if (step_plan_stale_) [[unlikely]]
    derive_step_plan();
  RLZOO_CHECK(obs.size() == obs_bytes_, fmt::format("env {}: observation buffer has {} bytes, the space needs {}",
                                                    spec_.id, obs.size(), obs_bytes_));
  if (seed) rng_.seed_with(*seed);
  info_.episode_done = false;
  info_.num_scalars = 0;
  info_.acting_agent = 0;
  set_detour(kInfoWritten, false);
  elapsed_ = 0;
  episode_return_ = 0.0;
  try {
    do_reset(seed, obs);
  } catch (...) {
    rethrow_naming_env("reset");
  }
  if (!has_detour(kWrapper) && !observation_is_finite(obs)) [[unlikely]]
    check_finite_observation(obs, 0);
  set_detour(kNeedsReset, false);
  return info_;
}

void Env::end_episode() {
  set_detour(kNeedsReset, true);
  // A wrapper may end the episode (its own time limit) while the inner env goes on, so the
  // statistics are read from the innermost env's running sums, not from its Info.
  info_.episode_done = true;
  info_.episode_return = stats_source_->episode_return_;
  info_.episode_length = stats_source_->elapsed_;
  rng_.prefetch_next_draws();  // the reset that follows draws from it
}

void Env::throw_step_without_reset() const {
  throw EnvError(fmt::format("env {}: step() called {}; call reset() first", spec_.id,
                              elapsed_ == 0 ? "before reset()" : "after the episode ended"));
}

void Env::throw_wrong_observation_size(std::size_t bytes) const {
  throw EnvError(fmt::format("env {}: step() was given an observation buffer of {} bytes; the observation space {} "
                             "needs {}",
                             spec_.id, bytes, spec_.observation_space.describe(), obs_bytes_));
}

void Env::throw_non_finite(double reward, ConstBytes obs, std::int64_t step) const {
  if (!std::isfinite(reward))
    throw EnvError(fmt::format("env {}, episode step {}: reward {} is not finite", spec_.id, step, reward));
  check_finite_observation(obs, step);
  RLZOO_CHECK(false, "throw_non_finite called for a finite reward and observation");
  std::abort();
}

void Env::rethrow_naming_env_at_step(std::int64_t step) const {
  rethrow_naming_env(fmt::format("episode step {}", step));
}

void Env::validate_action(ConstBytes action) const {
  const Space& as = spec_.action_space;
  if (action.size() != as.byte_size())
    throw_bad_action(action, fmt::format("it has {} bytes, the space needs {}", action.size(), as.byte_size()));
  switch (as.kind()) {
    case SpaceKind::Discrete: {
      const auto a = as_span<std::int64_t>(action)[0];
      if (a < as.start() || a >= as.start() + as.n()) throw_bad_action(action, "it is out of range");
      if (!mask_view_.empty() && !mask_view_[static_cast<std::size_t>(a - as.start())]) {
        std::string legal;
        for (std::size_t i = 0; i < mask_view_.size(); ++i)
          if (mask_view_[i]) legal += (legal.empty() ? "" : ", ") + std::to_string(as.start() + static_cast<std::int64_t>(i));
        throw_bad_action(action, "it is not legal now (legal: " + legal + ")");
      }
      return;
    }
    case SpaceKind::Box: {
      if (dtype_is_floating(as.dtype())) {
        for (std::int64_t i = 0; i < as.numel(); ++i) {
          const double v = as.dtype() == DType::Float32 ? as_span<float>(action)[i] : as_span<double>(action)[i];
          if (!std::isfinite(v)) throw_bad_action(action, fmt::format("element {} is not finite", i));
        }
      }
      if (has_detour(kStrictActions) && !as.contains(action)) throw_bad_action(action, "it is outside the bounds (strict mode)");
      return;
    }
    default:
      if (!as.contains(action)) throw_bad_action(action, "it is not an element of the space");
  }
}

namespace {
std::string format_action(ConstBytes action, const Space& as) {
  if (action.size() != as.byte_size() || as.kind() == SpaceKind::Dict) return fmt::format("<{} bytes>", action.size());
  std::string out;
  for (std::int64_t i = 0; i < as.numel(); ++i) {
    if (i) out += ", ";
    switch (as.dtype()) {
      case DType::UInt8: out += std::to_string(as_span<std::uint8_t>(action)[i]); break;
      case DType::Int32: out += std::to_string(as_span<std::int32_t>(action)[i]); break;
      case DType::Int64: out += std::to_string(as_span<std::int64_t>(action)[i]); break;
      case DType::Float32: out += fmt::format("{}", as_span<float>(action)[i]); break;
      case DType::Float64: out += fmt::format("{}", as_span<double>(action)[i]); break;
    }
  }
  return as.numel() == 1 && as.kind() == SpaceKind::Discrete ? out : "[" + out + "]";
}
}  // namespace

void Env::check_finite_observation(ConstBytes obs, std::int64_t step) const {
  if (all_finite(spec_.observation_space, obs)) return;
  std::string element;
  if (spec_.observation_space.is_box())
    if (const auto i = first_non_finite(spec_.observation_space, obs)) element = fmt::format(" {}", *i);
  throw EnvError(fmt::format("env {}, {}: observation element{} is not finite", spec_.id,
                             step == 0 ? std::string("reset") : fmt::format("episode step {}", step), element));
}

void Env::rethrow_naming_env(const std::string& when) const {
  try {
    throw;
  } catch (const EnvError&) {
    throw;  // already names its env (an inner env's, seen through a wrapper)
  } catch (const EnvFailure&) {
    throw;
  } catch (const UserError& e) {
    throw EnvError(fmt::format("env {}, {}: {}", spec_.id, when, e.what()));
  } catch (const std::exception& e) {
    throw EnvFailure(fmt::format("env {}, {}: {}", spec_.id, when, e.what()));
  }
}

void Env::throw_bad_action(ConstBytes action, const std::string& why) const {
  throw EnvError(fmt::format("env {}: invalid action {} for action space {}: {}", spec_.id,
                              format_action(action, spec_.action_space), spec_.action_space.describe(), why));
}

nlohmann::json Env::save_state() const {
  return {{"env", spec_.id},
          {"rng", rng_.state()},
          {"elapsed", elapsed_},
          {"needs_reset", needs_reset()},
          {"episode_return", episode_return_},
          {"acting_agent", info_.acting_agent},
          {"own", do_save_state()}};
}

void Env::load_state(const nlohmann::json& state, Bytes obs) {
  // The env's own part may read the counters (they are set first), but a state that fails to
  // load leaves the env as it was: an env that had no episode still refuses step().
  const std::string rng = rng_.state();
  const std::int64_t elapsed = elapsed_;
  const bool had_no_episode = needs_reset();
  const double episode_return = episode_return_;
  const Info info = info_;
  try {
    if (state.at("env").get<std::string>() != spec_.id)
      throw UserError(fmt::format("saved env state is for {}, not {}", state.at("env").get<std::string>(), spec_.id));
    rng_.set_state(state.at("rng").get<std::string>());
    elapsed_ = state.at("elapsed").get<std::int64_t>();
    set_detour(kNeedsReset, state.at("needs_reset").get<bool>());
    episode_return_ = state.at("episode_return").get<double>();
    info_ = Info{};
    info_.acting_agent = state.at("acting_agent").get<int>();
    do_load_state(state.at("own"), obs);
  } catch (...) {
    rng_.set_state(rng);
    elapsed_ = elapsed;
    set_detour(kNeedsReset, had_no_episode);
    episode_return_ = episode_return;
    info_ = info;
    try {
      throw;
    } catch (const nlohmann::json::exception& e) {
      throw UserError(fmt::format("env {}: malformed saved state: {}", spec_.id, e.what()));
    }
  }
}

nlohmann::json Env::do_save_state() const {
  if (const auto* access = dynamic_cast<const StateAccess*>(this)) return access->get_state();
  throw UserError(fmt::format("env {} cannot save its state (it implements neither StateAccess nor do_save_state)",
                              spec_.id));
}

void Env::do_load_state(const nlohmann::json& state, Bytes obs) {
  auto* access = dynamic_cast<StateAccess*>(this);
  if (!access) throw UserError(fmt::format("env {} cannot load a saved state", spec_.id));
  access->set_state(state.get<std::vector<double>>(), obs);
}

}  // namespace rlzoo
