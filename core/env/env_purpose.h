// What the envs made on this thread are for: training (the default) or evaluation.
//
//   EvalCallback / Agent::evaluate:   EnvPurposeScope scope(EnvPurpose::evaluation);
//                                     auto env = make_env(...);   // an evaluation env
//
// Code that evaluates sets the purpose for the scope in which it makes its envs, so that
// wrappers with side effects on the world outside the env (record_episodes,
// datasets/record_episodes.h, which appends finished episodes to a dataset) can stay
// inert in evaluation envs built from the same env_kwargs as the training envs. The purpose is
// read when an env is made, not per step, and is thread-local: an evaluation on the learner
// thread does not change what an actor thread makes meanwhile.
#pragma once

namespace rlzoo {

enum class EnvPurpose { training, evaluation };

// The purpose of envs made now on this thread (training unless a scope says otherwise).
EnvPurpose env_purpose();

// Sets this thread's purpose until the end of the scope (scopes nest).
class EnvPurposeScope {
 public:
  explicit EnvPurposeScope(EnvPurpose purpose);
  ~EnvPurposeScope();
  EnvPurposeScope(const EnvPurposeScope&) = delete;
  EnvPurposeScope& operator=(const EnvPurposeScope&) = delete;

 private:
  EnvPurpose previous_;
};

}  // namespace rlzoo
