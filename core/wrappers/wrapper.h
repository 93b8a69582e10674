// Base of env wrappers. A wrapper is an Env that owns the env it wraps and forwards to it;
// the inner env still does its own checking and bookkeeping (its time limit, its episode
// statistics). Info (episode statistics, scalars, acting agent), the action mask, per-agent
// rewards and candidates are those of the innermost env, so episode returns are the true
// returns even under reward normalisation (as SB3's Monitor reports them).
#pragma once

#include <memory>

#include "core/env/env.h"

namespace rlzoo {

class Wrapper : public Env {
 public:
  Env& inner() { return *inner_; }
  const Env& inner() const { return *inner_; }
  // The innermost env (below all wrappers).
  Env& unwrapped();
  // The inner env's spec as a wrapper's (no time limit of its own: the inner env applies it).
  static EnvSpec wrapper_spec(const Env& inner);

 protected:
  // `spec` defaults to the inner env's spec; a wrapper that changes a space passes its own.
  explicit Wrapper(std::unique_ptr<Env>&& inner);
  // inner is taken by rvalue reference so that a derived class can compute spec from *inner
  // in the same constructor call before the pointer is moved.
  Wrapper(std::unique_ptr<Env>&& inner, EnvSpec spec);

  // Default hooks forward unchanged; wrappers override what they transform.
  void do_reset(std::optional<std::uint64_t> seed, Bytes obs) override;
  StepResult do_step(ConstBytes action, Bytes obs) override;
  // The inner env's state (plus a StatefulWrapper's own, see wrappers.h).
  nlohmann::json do_save_state() const override;
  void do_load_state(const nlohmann::json& state, Bytes obs) override;

  // Copies the inner env's Info into this wrapper's (call after stepping the inner env).
  void sync_info() { mutable_info() = inner_->info(); }

 private:
  std::unique_ptr<Env> inner_;
};

// The spec of a wrapper around `env` that changes one of its spaces.
EnvSpec with_action_space(const Env& env, Space action_space);
EnvSpec with_observation_space(const Env& env, Space observation_space);

// The outermost env of type T in the chain env, env.inner(), ... (itself included), or null.
template <class T>
T* find_in_chain(Env& env) {
  for (Env* e = &env;;) {
    if (auto* t = dynamic_cast<T*>(e)) return t;
    auto* w = dynamic_cast<Wrapper*>(e);
    if (!w) return nullptr;
    e = &w->inner();
  }
}

}  // namespace rlzoo
