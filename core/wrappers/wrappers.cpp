#include "core/wrappers/wrappers.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fmt/format.h>
#include <typeinfo>

namespace rlzoo {

namespace {

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void require_float32_box(const Space& s, const Env& env, const char* wrapper, const char* what) {
  if (!s.is_box() || s.dtype() != DType::Float32)
    throw UserError(fmt::format("{} needs a float32 Box {} space, but env {} has {}", wrapper, what, env.id(),
                                s.describe()));
}


}  // namespace

// ---- stateful wrapper traversal -------------------------------------------------------------

nlohmann::json save_wrapper_states(const Env& env) {
  nlohmann::json out = nlohmann::json::array();
  const Env* e = &env;
  while (const auto* w = dynamic_cast<const Wrapper*>(e)) {
    if (const auto* s = dynamic_cast<const StatefulWrapper*>(e))
      out.push_back({{"wrapper", typeid(*e).name()}, {"state", s->save_state()}});
    e = &w->inner();
  }
  return out;
}

void load_wrapper_states(Env& env, const nlohmann::json& states) {
  std::size_t i = 0;
  Env* e = &env;
  while (auto* w = dynamic_cast<Wrapper*>(e)) {
    if (auto* s = dynamic_cast<StatefulWrapper*>(e)) {
      if (!states.is_array() || i >= states.size())
        throw UserError(fmt::format("env {}: saved wrapper states do not cover wrapper {}", env.id(), typeid(*e).name()));
      const auto& entry = states[i++];
      if (entry.value("wrapper", "") != typeid(*e).name())
        throw UserError(fmt::format("env {}: saved state is for wrapper {}, found {}", env.id(),
                                    entry.value("wrapper", "?"), typeid(*e).name()));
      s->load_state(entry.at("state"));
    }
    e = &w->inner();
  }
  if (states.is_array() && i != states.size())
    throw UserError(fmt::format("env {}: {} saved wrapper states but {} stateful wrappers", env.id(), states.size(), i));
}

void set_wrappers_update(Env& env, bool update) {
  Env* e = &env;
  while (auto* w = dynamic_cast<Wrapper*>(e)) {
    if (auto* s = dynamic_cast<StatefulWrapper*>(e)) s->set_update(update);
    e = &w->inner();
  }
}

// ---- TimeLimit ------------------------------------------------------------------------------

TimeLimit::TimeLimit(std::unique_ptr<Env> env, std::int64_t max_episode_steps) : Wrapper(std::move(env)) {
  if (max_episode_steps <= 0)
    throw UserError(fmt::format("TimeLimit for env {}: max_episode_steps must be > 0, got {}", id(), max_episode_steps));
  set_max_episode_steps(max_episode_steps);
}

// ---- RecordEpisodeStatistics ------------------------------------------------------------------

RecordEpisodeStatistics::RecordEpisodeStatistics(std::unique_ptr<Env> env, std::size_t window)
    : Wrapper(std::move(env)), window_(window) {
  if (window == 0) throw UserError("RecordEpisodeStatistics: window must be > 0");
}

void RecordEpisodeStatistics::do_reset(std::optional<std::uint64_t> seed, Bytes obs) {
  Wrapper::do_reset(seed, obs);
  start_time_ = now_seconds();
}

StepResult RecordEpisodeStatistics::do_step(ConstBytes action, Bytes obs) {
  const StepResult r = Wrapper::do_step(action, obs);
  const Info& info = this->info();
  if (info.episode_done) {
    const double t = now_seconds() - start_time_;
    mutable_info().set_scalar("episode_time", t);
    returns_.push_back(info.episode_return);
    lengths_.push_back(info.episode_length);
    times_.push_back(t);
    if (returns_.size() > window_) {
      returns_.pop_front();
      lengths_.pop_front();
      times_.pop_front();
    }
    ++episodes_;
  }
  return r;
}

// ---- ClipAction -----------------------------------------------------------------------------

ClipAction::ClipAction(std::unique_ptr<Env> env)
    : Wrapper(std::move(env), [&] {
        require_float32_box(env->action_space(), *env, "ClipAction", "action");
        const Space& a = env->action_space();
        return with_action_space(*env, Space::box(-INFINITY, INFINITY, a.shape(), DType::Float32));
      }()),
      clipped_(static_cast<std::size_t>(inner().action_space().numel())) {}

StepResult ClipAction::do_step(ConstBytes action, Bytes obs) {
  const auto a = as_span<float>(action);
  const Space& s = inner().action_space();
  for (std::size_t i = 0; i < clipped_.size(); ++i)
    clipped_[i] = static_cast<float>(std::clamp(static_cast<double>(a[i]), s.low()[i], s.high()[i]));
  const StepResult r = inner().step(std::span<const float>(clipped_), obs);
  sync_info();
  return r;
}

// ---- RescaleAction --------------------------------------------------------------------------

RescaleAction::RescaleAction(std::unique_ptr<Env> env, double min_action, double max_action)
    : Wrapper(std::move(env), [&] {
        require_float32_box(env->action_space(), *env, "RescaleAction", "action");
        if (!env->action_space().is_bounded())
          throw UserError(fmt::format("RescaleAction: env {} has unbounded actions {}", env->id(),
                                      env->action_space().describe()));
        if (!(min_action < max_action))
          throw UserError(fmt::format("RescaleAction: min_action {} must be < max_action {}", min_action, max_action));
        return with_action_space(*env, Space::box(min_action, max_action, env->action_space().shape(), DType::Float32));
      }()),
      min_(min_action),
      max_(max_action),
      scaled_(static_cast<std::size_t>(inner().action_space().numel())) {}

StepResult RescaleAction::do_step(ConstBytes action, Bytes obs) {
  const auto a = as_span<float>(action);
  const Space& s = inner().action_space();
  for (std::size_t i = 0; i < scaled_.size(); ++i) {
    const double lo = s.low()[i], hi = s.high()[i];
    scaled_[i] = static_cast<float>(lo + (hi - lo) * ((static_cast<double>(a[i]) - min_) / (max_ - min_)));
  }
  const StepResult r = inner().step(std::span<const float>(scaled_), obs);
  sync_info();
  return r;
}

// ---- NormalizeObservation -------------------------------------------------------------------

NormalizeObservation::NormalizeObservation(std::unique_ptr<Env> env, double epsilon, double clip)
    : Wrapper(std::move(env), [&] {
        require_float32_box(env->observation_space(), *env, "NormalizeObservation", "observation");
        return with_observation_space(*env, Space::box(-INFINITY, INFINITY, env->observation_space().shape()));
      }()),
      rms_(static_cast<std::size_t>(observation_space().numel())),
      epsilon_(epsilon),
      clip_(clip),
      scratch_(static_cast<std::size_t>(observation_space().numel())) {
  if (!(epsilon > 0)) throw UserError(fmt::format("NormalizeObservation: epsilon must be > 0, got {}", epsilon));
  if (clip < 0) throw UserError(fmt::format("NormalizeObservation: clip must be >= 0 (0 = off), got {}", clip));
}

void NormalizeObservation::normalize(Bytes obs) {
  auto o = as_span<float>(obs);
  for (std::size_t i = 0; i < o.size(); ++i) scratch_[i] = o[i];
  if (update_) rms_.update(scratch_.data(), 1);
  for (std::size_t i = 0; i < o.size(); ++i) {
    double v = (scratch_[i] - rms_.mean()[i]) / std::sqrt(rms_.var()[i] + epsilon_);
    if (clip_ > 0) v = std::clamp(v, -clip_, clip_);
    o[i] = static_cast<float>(v);
  }
}

void NormalizeObservation::do_reset(std::optional<std::uint64_t> seed, Bytes obs) {
  Wrapper::do_reset(seed, obs);
  normalize(obs);
}

StepResult NormalizeObservation::do_step(ConstBytes action, Bytes obs) {
  const StepResult r = Wrapper::do_step(action, obs);
  normalize(obs);
  return r;
}

nlohmann::json NormalizeObservation::save_state() const { return {{"obs_rms", rms_.state()}}; }
void NormalizeObservation::load_state(const nlohmann::json& s) { rms_.load_state(s.at("obs_rms")); }

// ---- NormalizeReward ------------------------------------------------------------------------

NormalizeReward::NormalizeReward(std::unique_ptr<Env> env, double gamma, double epsilon)
    : Wrapper(std::move(env)), rms_(1), gamma_(gamma), epsilon_(epsilon) {
  if (!(gamma >= 0 && gamma <= 1)) throw UserError(fmt::format("NormalizeReward: gamma must be in [0, 1], got {}", gamma));
  if (!(epsilon > 0)) throw UserError(fmt::format("NormalizeReward: epsilon must be > 0, got {}", epsilon));
}

StepResult NormalizeReward::do_step(ConstBytes action, Bytes obs) {
  StepResult r = Wrapper::do_step(action, obs);
  discounted_return_ = discounted_return_ * gamma_ * (r.terminated ? 0.0 : 1.0) + r.reward;
  if (update_) rms_.update(discounted_return_);
  r.reward = r.reward / std::sqrt(rms_.var()[0] + epsilon_);
  return r;
}

nlohmann::json NormalizeReward::save_state() const {
  return {{"return_rms", rms_.state()}, {"discounted_return", discounted_return_}};
}
void NormalizeReward::load_state(const nlohmann::json& s) {
  rms_.load_state(s.at("return_rms"));
  discounted_return_ = s.value("discounted_return", 0.0);
}

// ---- SelectObservation ----------------------------------------------------------------------

SelectObservation::SelectObservation(std::unique_ptr<Env> env, std::vector<std::int64_t> indices, std::string id)
    : Wrapper(std::move(env), [&] {
        const Space& s = env->observation_space();
        if (!s.is_box())
          throw UserError(fmt::format("SelectObservation needs a Box observation space, but env {} has {}", env->id(),
                                      s.describe()));
        if (indices.empty()) throw UserError(fmt::format("SelectObservation for env {}: no indices given", env->id()));
        std::vector<double> low, high;
        for (const auto i : indices) {
          if (i < 0 || i >= s.numel())
            throw UserError(fmt::format("SelectObservation for env {}: index {} is out of range for {} ({} entries)",
                                        env->id(), i, s.describe(), s.numel()));
          low.push_back(s.low()[static_cast<std::size_t>(i)]);
          high.push_back(s.high()[static_cast<std::size_t>(i)]);
        }
        const auto n = static_cast<std::int64_t>(indices.size());
        EnvSpec spec = with_observation_space(*env, Space::box(std::move(low), std::move(high), {n}, s.dtype()));
        if (!id.empty()) spec.id = id;
        return spec;
      }()),
      indices_(std::move(indices)),
      element_size_(dtype_size(inner().observation_space().dtype())),
      full_(inner().observation_space().byte_size()) {}

void SelectObservation::select(Bytes obs) const {
  for (std::size_t k = 0; k < indices_.size(); ++k)
    std::memcpy(obs.data() + k * element_size_, full_.data() + static_cast<std::size_t>(indices_[k]) * element_size_,
                element_size_);
}

void SelectObservation::do_reset(std::optional<std::uint64_t> seed, Bytes obs) {
  Wrapper::do_reset(seed, full_);
  select(obs);
}

StepResult SelectObservation::do_step(ConstBytes action, Bytes obs) {
  const StepResult r = Wrapper::do_step(action, full_);
  select(obs);
  return r;
}

void SelectObservation::do_load_state(const nlohmann::json& state, Bytes obs) {
  Wrapper::do_load_state(state, full_);
  select(obs);
}

}  // namespace rlzoo
