// The inline definitions of Env's step (Env::step_impl, step_body, finish_step) and of the
// loop that steps a run of envs (Env::step_run_loop), declared in core/env/env.h, which
// includes this file at its end.
#pragma once

#include "core/env/env.h"

namespace rlzoo {

// step() is defined here, in the header, so that a vector env's loop or a caller's own loop
// inlines its bookkeeping around the one virtual call to do_step() (the call's own prologue
// and epilogue were a tenth of a CartPole step); the error paths are out of line.
template <bool kCheckObservation, class DoStep>
inline void Env::step_impl(ConstBytes action, Bytes obs, StepResult& out, DoStep do_step_of) {
  // A detour, a buffer of the wrong size or an action the inline checks do not accept: the
  // general step, out of line, which sees to the detours and raises each error.
  if (!step_is_plain(action, obs)) [[unlikely]] {
    out = step_detoured<kCheckObservation>(action, obs);
    return;
  }
  step_body<kCheckObservation, false>(action, obs, out, do_step_of);
}

template <bool kCheckObservation, bool kDetoured, class DoStep>
inline void Env::step_body(ConstBytes action, Bytes obs, StepResult& out, DoStep do_step_of) {
  if constexpr (kDetoured) {  // otherwise step_is_plain() has passed
    if (has_detour(kNeedsReset)) throw_step_without_reset();
    if (obs.size() != obs_bytes_) throw_wrong_observation_size(obs.size());
    // The common cases inline, everything else (and every error message) in validate_action.
    if (!discrete_action_is_legal<true>(action) && !float32_box_action_is_acceptable<true>(action))
      validate_action(action);
    // info_ is left alone unless the env wrote into it (its line of the env object then stays
    // out of a vector env's loop). episode_done needs no clearing: only reset() follows the
    // step that set it, and reset() clears it.
    if (has_detour(kInfoWritten)) {
      info_.num_scalars = 0;
      set_detour(kInfoWritten, false);
    }
  }
  StepResult d;
  try {
    d = do_step_of(*this, action, obs);
  } catch (...) {
    rethrow_naming_env_at_step(elapsed_ + 1);
  }
  finish_step<kCheckObservation, kDetoured>(d, obs, out);
}

template <bool kCheckObservation, bool kDetoured>
inline void Env::finish_step(const StepResult& d, ConstBytes obs, StepResult& out) {
  // Taken apart into scalars and put together once at the end: GCC keeps a StepResult that
  // came back in a register packed, and packed it again after each change of a field (a dozen
  // instructions per step in a vector env's loop).
  const double reward = d.reward;
  const bool terminated = d.terminated;
  bool checked_finite = d.checked_finite;
  const std::int64_t elapsed = ++elapsed_;
  if (!kDetoured || !has_detour(kWrapper)) {
    // What an env returns is checked where it is made (wrappers only pass it on): a NaN or Inf
    // would otherwise reach a learner's loss and surface far from its cause.
    if (!checked_finite) {
      if (!std::isfinite(reward) || (kCheckObservation && !observation_is_finite(obs))) [[unlikely]]
        throw_non_finite(reward, obs, elapsed);
    }
    single_agent_reward_ = reward;  // agent_rewards() of a single-agent env; unused otherwise
    episode_return_ += reward;
  } else {
    checked_finite = false;  // the wrapped env's claim, not about what this wrapper wrote
  }
  const bool truncated = d.truncated | (static_cast<std::uint64_t>(elapsed) > steps_within_limit_);
  if (terminated | truncated) [[unlikely]]
    end_episode();
  out.reward = reward;
  out.terminated = terminated;
  out.truncated = truncated;
  out.checked_finite = checked_finite;
}

template <class E, class DoStep, class DoStepPair>
inline void Env::step_run_loop(StepRun& run, DoStep do_step_of, DoStepPair pair_of) {
  // Locals: the stores into the envs could alias `run` as far as the compiler knows.
  Env* const* const envs = run.envs;
  const std::size_t n = run.count, ab = run.action_bytes, ob = run.obs_bytes;
  const std::byte* const actions = run.actions;
  std::byte* const obs = run.obs;
  double* const rewards = run.rewards;
  std::uint8_t *const terminated = run.terminated, *const truncated = run.truncated;
  std::uint32_t* const ended = run.ended;
  std::size_t num_ended = 0;
  bool all_checked = true;
  const auto record = [&](std::size_t i, const StepResult& r) {
    rewards[i] = r.reward;
    terminated[i] = r.terminated;
    truncated[i] = r.truncated;
    all_checked &= r.checked_finite;
    if (r.done()) [[unlikely]]
      ended[num_ended++] = static_cast<std::uint32_t>(i);
  };
  std::size_t i = 0;  // the env being stepped, for run.failed
  try {
    while (i < n) {
      Env& a = *envs[i];
      const ConstBytes a_action(actions + i * ab, ab);
      const Bytes a_obs(obs + i * ob, ob);
      if constexpr (!std::is_same_v<DoStepPair, NoPairStep>) {
        if (i + 1 < n) {
          Env& b = *envs[i + 1];
          const ConstBytes b_action(actions + (i + 1) * ab, ab);
          const Bytes b_obs(obs + (i + 1) * ob, ob);
          if (a.step_is_plain(a_action, a_obs) && b.step_is_plain(b_action, b_obs)) [[likely]] {
            static_assert(noexcept(pair_of(static_cast<E&>(a), static_cast<E&>(b), a_action, b_action, a_obs, b_obs)),
                          "step_run_paired: pair_of must be noexcept");
            const std::array<StepResult, 2> d =
                pair_of(static_cast<E&>(a), static_cast<E&>(b), a_action, b_action, a_obs, b_obs);
            // Only a non-finite reward can throw here (the observation is the vector env's to
            // check). Were a's not finite, b would have moved already, where a loop one by one
            // leaves it as it was: an env type whose rewards can be non-finite keeps to
            // step_run_with().
            StepResult r;
            a.finish_step<false, false>(d[0], a_obs, r);
            record(i, r);
            ++i;
            b.finish_step<false, false>(d[1], b_obs, r);
            record(i, r);
            ++i;
            continue;
          }
        }
      }
      StepResult r;
      a.step_impl<false>(a_action, a_obs, r, do_step_of);
      record(i, r);
      ++i;
    }
  } catch (...) {
    run.failed = i;
    throw;
  }
  run.num_ended = num_ended;
  run.all_checked_finite = all_checked;
}

}  // namespace rlzoo
