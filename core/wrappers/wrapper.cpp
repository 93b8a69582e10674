#include "core/wrappers/wrapper.h"

#include <nlohmann/json.hpp>

namespace rlzoo {

EnvSpec Wrapper::wrapper_spec(const Env& inner) {
  EnvSpec s = inner.spec();
  s.max_episode_steps = 0;  // the inner env applies its own limit
  return s;
}

EnvSpec with_action_space(const Env& env, Space action_space) {
  EnvSpec s = Wrapper::wrapper_spec(env);
  s.action_space = std::move(action_space);
  return s;
}

EnvSpec with_observation_space(const Env& env, Space observation_space) {
  EnvSpec s = Wrapper::wrapper_spec(env);
  s.observation_space = std::move(observation_space);
  return s;
}

Wrapper::Wrapper(std::unique_ptr<Env>&& inner) : Wrapper(std::move(inner), EnvSpec{}) {}

Wrapper::Wrapper(std::unique_ptr<Env>&& inner, EnvSpec spec)
    : Env(spec.id.empty() ? wrapper_spec(*inner) : std::move(spec)), inner_(std::move(inner)) {
  forward_views_to(*inner_);
}

Env& Wrapper::unwrapped() {
  Env* e = inner_.get();
  while (auto* w = dynamic_cast<Wrapper*>(e)) e = &w->inner();
  return *e;
}

void Wrapper::do_reset(std::optional<std::uint64_t> seed, Bytes obs) {
  inner_->reset(seed, obs);
  sync_info();
}

StepResult Wrapper::do_step(ConstBytes action, Bytes obs) {
  const StepResult r = inner_->step(action, obs);
  sync_info();
  return r;
}

nlohmann::json Wrapper::do_save_state() const { return {{"inner", inner_->save_state()}}; }

void Wrapper::do_load_state(const nlohmann::json& state, Bytes obs) {
  inner_->load_state(state.at("inner"), obs);
  sync_info();
}

}  // namespace rlzoo
