// The Env API: Gymnasium semantics in C++, without allocation on the hot path.
//
//   Info info = env.reset(seed, obs);                  // obs: observation_space().byte_size() bytes
//   StepResult r = env.step(action, obs);              // r.reward, r.terminated, r.truncated
//
// * The public reset()/step() are non-virtual. step() checks the action (size, dtype, finite,
//   discrete range, legal-action mask; Box bounds only in strict mode, because Gymnasium's envs
//   accept and clip out-of-bound actions), refuses to step a finished episode, counts steps,
//   accumulates episode statistics, applies the time limit (truncated = elapsed >= limit), then
//   calls the env's protected hook do_step(). Bookkeeping lives here; no env can skip it.
// * terminated: a true end of the MDP (do not bootstrap). truncated: the episode was cut (time
//   limit): bootstrap from the final observation. Both can be true on the same step.
// * Each env owns its Rng. reset(seed) re-seeds it; reset(std::nullopt) continues the stream.
// * Observations are written into memory the caller hands in (a row of a batch), so an env
//   never allocates per step. Actions are read from caller memory in the action space's
//   layout (see core/spaces/space.h): an int64 for Discrete, float32 values for a float32 Box.
// * Turn-based multi-agent games: info().acting_agent is the agent whose observation was just
//   written and who acts next; info().agent_rewards() holds the last step's reward per agent
//   (spec().num_agents entries); StepResult::reward is the reward of the agent that acted.
// * Legal-action masks (Discrete action spaces): when spec().has_action_mask, action_mask()
//   holds n() bytes, 1 for a legal action, refreshed by every reset/step.
// * Candidate actions (games whose legal moves are a variable list, e.g. DouDizhu): when
//   spec().candidate_feature_dim > 0, candidates() describes the legal moves of the acting
//   agent, each with a feature vector, and the action is an index into that list (the action
//   space is then Discrete(max_candidates)). Envs fill it through set_candidates().
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/common/bytes.h"
#include "core/common/error.h"
#include "core/common/finite_floats.h"
#include "core/common/rng.h"
#include "core/spaces/space.h"

namespace rlzoo {

// The immutable description of an env (shared read-only by all copies of it).
struct EnvSpec {
  std::string id;
  Space observation_space;
  Space action_space;
  std::int64_t max_episode_steps = 0;          // 0: no time limit
  std::optional<double> reward_threshold{};    // the score at which the env counts as solved
  int num_agents = 1;
  bool has_action_mask = false;                // Discrete action spaces only
  std::int64_t candidate_feature_dim = 0;      // > 0: the env exposes candidate actions
};

struct StepResult {
  double reward = 0.0;
  bool terminated = false;
  bool truncated = false;
  // Set by an env's do_step() that has itself found its reward and every float of the
  // observation it wrote finite (NaN/Inf-free), typically in registers before the store
  // (store_float32s_checked): Env::step() then skips its own check, which would read the
  // observation back from memory. Left false, Env::step() checks, and names a bad value.
  bool checked_finite = false;
  // One OR and one test (|| compiled to a branch per flag, and a caller's loop repacked the
  // flags to test them).
  bool done() const { return terminated | truncated; }
};

class Env;

// A run of envs stepped in one loop (a vector env's inner loop, see Env::step_run): env i takes
// the action at actions + i * action_bytes, writes its observation at obs + i * obs_bytes and
// its StepResult's fields into rewards[i], terminated[i] and truncated[i].
struct StepRun {
  Env* const* envs = nullptr;
  std::size_t count = 0;
  const std::byte* actions = nullptr;
  std::size_t action_bytes = 0;
  std::byte* obs = nullptr;
  std::size_t obs_bytes = 0;
  double* rewards = nullptr;
  std::uint8_t* terminated = nullptr;
  std::uint8_t* truncated = nullptr;
  // Out: the indices of the envs whose episode ended (room for `count`), whether every env's
  // StepResult::checked_finite was set, and, when an env throws, the index of that env.
  std::uint32_t* ended = nullptr;
  std::size_t num_ended = 0;
  bool all_checked_finite = true;
  std::size_t failed = 0;
};

// A few named scalars an env reports per step (e.g. "x_position"). Names must be string
// literals (or otherwise outlive the env): nothing is allocated per step.
struct InfoScalar {
  const char* name = nullptr;
  double value = 0.0;
};

// What an env reports beside the observation. Preallocated once per env and reused.
struct Info {
  static constexpr int kMaxScalars = 8;

  // Set on the step that ends an episode (until reset()): statistics of the innermost env's
  // rewards (what a Monitor/RecordEpisodeStatistics reports in Gymnasium and SB3).
  bool episode_done = false;
  int num_scalars = 0;  // of `scalars` below, set during the last step or reset
  double episode_return = 0.0;
  std::int64_t episode_length = 0;

  int acting_agent = 0;
  std::array<InfoScalar, kMaxScalars> scalars{};

  void set_scalar(const char* name, double value);   // overwrites a scalar of the same name
  std::optional<double> scalar(std::string_view name) const;
};

// Legal moves of the acting agent as a list with one feature row each.
struct CandidateView {
  std::int64_t count = 0;
  std::int64_t feature_dim = 0;
  const float* features = nullptr;   // [count, feature_dim], row-major
};

// An error raised inside an env, with the env and the moment named: "env CartPole-v1, episode
// step 17: <the env's message>". Env::reset/step wrap what do_reset/do_step throw (a UserError
// becomes an EnvError, any other std::exception an EnvFailure), so a failing env in a vector
// env, an actor thread or a training loop is always identified. Errors that already name the
// env (bad actions, step after the end, an inner env's error seen through a wrapper) pass
// through unchanged.
class EnvError : public UserError {
 public:
  using UserError::UserError;
};
// An env's failure that was not a UserError (a bug in the env, std::bad_alloc, ...): stays an
// internal error for the CLI (exit 3), with the same prefix.
class EnvFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Env {
 public:
  virtual ~Env();
  Env(const Env&) = delete;
  Env& operator=(const Env&) = delete;

  const EnvSpec& spec() const { return spec_; }
  const std::string& id() const { return spec_.id; }
  const Space& observation_space() const { return spec_.observation_space; }
  const Space& action_space() const { return spec_.action_space; }

  // Starts an episode and writes its first observation into obs.
  const Info& reset(std::optional<std::uint64_t> seed, Bytes obs);
  // Applies one action (layout of action_space()) and writes the next observation into obs.
  // Throws EnvError (a UserError) for a malformed or illegal action, or when the episode has
  // ended and reset() was not called; what the env itself throws arrives as EnvError or
  // EnvFailure naming the env and the episode step (see EnvError).
  StepResult step(ConstBytes action, Bytes obs) {
    StepResult r;
    step_impl<true>(action, obs, r);
    return r;
  }
  // Conveniences for the common cases.
  StepResult step(std::int64_t discrete_action, Bytes obs) { return step(bytes_of(discrete_action), obs); }
  StepResult step(std::span<const float> box_action, Bytes obs) { return step(std::as_bytes(box_action), obs); }

  // For owners of a batch of observations (vector envs): steps every env of `run` as step()
  // does, except for the NaN/Inf check of the observation, which the caller makes over its
  // whole batch at once, calling check_observation() for a row that fails it (and for a final
  // observation before the reset overwrites it) unless the env set StepResult::checked_finite.
  // All envs of the run are of this env's own dynamic type. The default calls each env's
  // do_step() through the vtable; an env type can override it with a loop in which its
  // do_step() inlines (see step_run_with()), which takes the call, its prologue and the packing
  // of the StepResult out of every step of a vector env.
  virtual void step_run(StepRun& run);
  // The default's loop, for a run of envs of mixed types.
  static void step_run_virtual(StepRun& run);

  // Returns when `obs` (what this env just wrote) is finite; otherwise throws EnvError naming
  // this env, its episode step and the element.
  void check_observation(ConstBytes obs) const;
  // Whether step() checks this env's observation for NaN/Inf: it has a float leaf and is not a
  // wrapper (a wrapper passes on what the env it wraps wrote, and that env checked it).
  bool checks_observations() const { return finite_check_ != FiniteCheck::None && !has_detour(kWrapper); }
  // Whether this env's observation is one float32 Box and the env itself checks it (not a
  // wrapper): then a batch of its observations can be checked as one float array.
  bool checks_float32_observations() const { return finite_check_ == FiniteCheck::Float32 && !has_detour(kWrapper); }

  const Info& info() const { return info_; }
  // Reward of each agent on the last step (num_agents entries).
  std::span<const double> agent_rewards() const { return agent_rewards_view_; }
  // n() bytes, 1 = legal; empty when the env has no masks.
  std::span<const std::uint8_t> action_mask() const { return mask_view_; }
  CandidateView candidates() const { return *candidates_view_; }

  std::int64_t elapsed_steps() const { return elapsed_; }
  bool needs_reset() const { return has_detour(kNeedsReset); }

  // Time limit of this env (0 disables it). make_env() sets the registered limit.
  void set_max_episode_steps(std::int64_t steps);
  std::int64_t max_episode_steps() const { return spec_.max_episode_steps; }
  void set_reward_threshold(std::optional<double> t) { spec_.reward_threshold = t; }
  // Strict mode also rejects Box actions outside the bounds.
  void set_strict_actions(bool strict) { set_detour(kStrictActions, strict); }

  Rng& rng() { return rng_; }

  // Throws a UserError describing why `action` is not acceptable; returns when it is.
  void validate_action(ConstBytes action) const;

  // The complete state of the env in mid-episode (its Rng, step counter, episode sums and
  // the env's own state), so that a resumed training run continues bit for bit.
  // load_state writes the current observation into obs. Envs that implement StateAccess get
  // this for free; others override do_save_state/do_load_state, or saving throws UserError.
  nlohmann::json save_state() const;
  void load_state(const nlohmann::json& state, Bytes obs);

 protected:
  explicit Env(EnvSpec spec);

  // Hooks. do_reset is called after the Rng is (re)seeded; seed is passed on for wrappers.
  virtual void do_reset(std::optional<std::uint64_t> seed, Bytes obs) = 0;
  virtual StepResult do_step(ConstBytes action, Bytes obs) = 0;
  virtual nlohmann::json do_save_state() const;
  virtual void do_load_state(const nlohmann::json& state, Bytes obs);

  // Scalars an env sets last until its next step() or reset() (which clear them).
  Info& mutable_info() {
    detours_ |= kInfoWritten;  // step() clears num_scalars only then: it need not touch info_ otherwise
    return info_;
  }
  std::span<double> mutable_agent_rewards() { return agent_rewards_; }
  std::span<std::uint8_t> mutable_action_mask() { return mask_; }
  void set_candidates(CandidateView c) { candidates_ = c; }
  // Changes to the spaces and the time limit take effect at the next reset() (step() works
  // from what the constructor and reset() derive from them, see derive_step_plan()).
  EnvSpec& mutable_spec() {
    step_plan_stale_ = true;
    return spec_;
  }

  // For the step_run() override of a final env class E: steps every env of `run` (all of type E)
  // with `do_step_of(E&, action, obs)` in place of the virtual do_step(). With do_step() defined
  // in the same file, it inlines into the loop:
  //   void E::step_run(StepRun& run) {
  //     step_run_with<E>(run, [](E& e, ConstBytes a, Bytes o) { return e.E::do_step(a, o); });
  //   }
  // (E must be final: a class derived from E would inherit a loop that skips its own do_step.)
  template <class E, class DoStep>
  static void step_run_with(StepRun& run, DoStep do_step_of) {
    static_assert(std::is_final_v<E>, "step_run_with<E>: E must be a final class");
    step_run_loop<E>(run, [&](Env& e, ConstBytes a, Bytes o) { return do_step_of(static_cast<E&>(e), a, o); },
                     NoPairStep{});
  }

  // As step_run_with(), for an env type that can also step two envs at once (the arithmetic of
  // both in the two lanes of SSE2 registers): `pair_of(E& a, E& b, action_a, action_b, obs_a,
  // obs_b)` returns {a's StepResult, b's} as their do_step() would, and must be noexcept. Two
  // neighbours of the run go to it when neither needs anything beyond a plain step
  // (step_is_plain); the others, and the last of an odd run, take do_step_of. Every result,
  // check and error is that of stepping the envs one by one, in order, provided the rewards
  // pair_of returns are finite (see step_run_loop).
  template <class E, class DoStep, class DoStepPair>
  static void step_run_paired(StepRun& run, DoStep do_step_of, DoStepPair pair_of) {
    static_assert(std::is_final_v<E>, "step_run_paired<E>: E must be a final class");
    step_run_loop<E>(run, [&](Env& e, ConstBytes a, Bytes o) { return do_step_of(static_cast<E&>(e), a, o); },
                     pair_of);
  }

  // For wrappers: statistics, mask and candidates come from the wrapped env, not this one.
  void forward_views_to(const Env& inner);
  bool is_wrapper() const { return has_detour(kWrapper); }

 private:
  [[noreturn]] void throw_bad_action(ConstBytes action, const std::string& why) const;
  [[noreturn, gnu::cold]] void throw_step_without_reset() const;
  [[noreturn, gnu::cold]] void throw_wrong_observation_size(std::size_t bytes) const;
  void end_episode();
  // Inside a catch block: rethrows the current exception as EnvError/EnvFailure prefixed with
  // this env's id and `when` (see EnvError).
  [[noreturn]] void rethrow_naming_env(const std::string& when) const;
  [[noreturn, gnu::cold]] void rethrow_naming_env_at_step(std::int64_t step) const;
  // Throws EnvError naming the element when a float of `obs` is NaN or Inf after reset (step 0)
  // or episode step `step`.
  void check_finite_observation(ConstBytes obs, std::int64_t step) const;
  // Throws EnvError for step `step`'s non-finite reward or observation.
  [[noreturn, gnu::cold]] void throw_non_finite(double reward, ConstBytes obs, std::int64_t step) const;
  // What step() needs from the spaces, read once (a step then reads a few members of this
  // object instead of walking Space objects): the Discrete action's range, and how the
  // observation is checked for NaN/Inf.
  void derive_step_plan();
  void set_steps_within_limit();  // from spec_.max_episode_steps
  // The loop of a run: each env through do_step_of(Env&, action, obs), or two neighbours at a
  // time through pair_of (see step_run_paired) unless it is NoPairStep.
  struct NoPairStep {};
  template <class E, class DoStep, class DoStepPair>
  static void step_run_loop(StepRun& run, DoStep do_step_of, DoStepPair pair_of);
  // do_step_of(*this, action, obs) calls do_step(): through the vtable, or directly from an
  // env type's step_run().
  template <bool kCheckObservation, class DoStep>
  void step_impl(ConstBytes action, Bytes obs, StepResult& out, DoStep do_step_of);
  // The step itself. kDetoured: the general case (out of line, step_detoured()), which sees to
  // every detour and checks the buffer and the action, raising their errors; otherwise
  // step_is_plain() has passed and the step skips those tests.
  template <bool kCheckObservation, bool kDetoured, class DoStep>
  void step_body(ConstBytes action, Bytes obs, StepResult& out, DoStep do_step_of);
  // What a step does after do_step() returned d: counts the step, checks what the env made
  // (unless the env checked it itself), sums the return, applies the time limit and ends the
  // episode; the step's result goes to out.
  template <bool kCheckObservation, bool kDetoured>
  void finish_step(const StepResult& d, ConstBytes obs, StepResult& out);
  // Whether a step of this env can call do_step() at once: no detour set, a buffer of the
  // right size and an action the inline checks accept. Otherwise step_impl() takes the general
  // step (step_detoured()), which throws where the step is not acceptable.
  bool step_is_plain(ConstBytes action, Bytes obs) const {
    return detours_ == 0 && obs.size() == obs_bytes_ &&
           (discrete_action_is_legal<false>(action) || float32_box_action_is_acceptable<false>(action));
  }
  // Returns its result rather than writing through a reference, so that the caller's result
  // can stay in registers on the inline path.
  template <bool kCheckObservation>
  [[gnu::noinline]] StepResult step_detoured(ConstBytes action, Bytes obs);
  template <bool kCheckObservation>
  void step_impl(ConstBytes action, Bytes obs, StepResult& out) {
    step_impl<kCheckObservation>(action, obs, out, [](Env& e, ConstBytes a, Bytes o) { return e.do_step(a, o); });
  }
  // The counts below come from the spans' sizes (equal to finite_count_ and action_floats_
  // once step() checked them): where a caller's size is a constant (step(int64_t) passes 8
  // bytes, tests pass small arrays), GCC then sees the whole check and no longer warns about
  // the 16-byte loads of its unreachable four-floats-and-more path.
  bool observation_is_finite(ConstBytes obs) const {
    if (finite_check_ == FiniteCheck::Float32) [[likely]]
      return float32s_are_finite(reinterpret_cast<const float*>(obs.data()), obs.size() / sizeof(float));
    return observation_is_finite_slow(obs);
  }
  bool observation_is_finite_slow(ConstBytes obs) const;
  // A float32 Box action of the right size with finite values, outside strict mode
  // (kDetoured: strict mode may be on).
  template <bool kDetoured>
  bool float32_box_action_is_acceptable(ConstBytes action) const {
    return action_floats_ > 0 && (!kDetoured || !has_detour(kStrictActions)) &&
           action.size() == action_floats_ * sizeof(float) &&
           float32s_are_finite(reinterpret_cast<const float*>(action.data()), action.size() / sizeof(float));
  }
  // A Discrete action in range and legal: the common case, checked inline by step()
  // (kDetoured: the env may have a mask).
  template <bool kDetoured>
  bool discrete_action_is_legal(ConstBytes action) const {
    if (action.size() != sizeof(std::int64_t)) return false;  // action_n_ is 0 unless Discrete
    std::int64_t a;
    std::memcpy(&a, action.data(), sizeof a);
    const auto i = static_cast<std::uint64_t>(a - action_start_);  // below 0 wraps to a huge value
    return i < static_cast<std::uint64_t>(action_n_) && (!kDetoured || mask_view_.empty() || mask_view_[i]);
  }

  // Layout: step() touches the step block at the end of this object (next to the derived env's
  // own state), and the vtable pointer for the call to do_step() unless a vector env's
  // step_run() inlined it; info_ only when the env wrote into it. Two or three cache lines of an
  // env where it once touched nine: a 1024-env vector env steps 3.4 MB of env objects, mostly
  // the Rng's state, so each line is a likely cache miss there.
  Info info_;
  EnvSpec spec_;
  std::vector<double> agent_reward_storage_;  // num_agents > 1
  std::span<double> agent_rewards_;          // single_agent_reward_ or agent_reward_storage_
  std::vector<std::uint8_t> mask_;
  CandidateView candidates_;
  // What the accessors show: this env's own storage, or the wrapped env's.
  std::span<const double> agent_rewards_view_;
  const CandidateView* candidates_view_ = &candidates_;
  const Env* stats_source_ = this;  // the innermost env, whose rewards episode statistics sum
  // Just before the step block, so that the engine's index (its last word) shares a cache line
  // with it: a reset then touches the one state line the draws read (prefetched when the
  // episode ends, see end_episode()).
  Rng rng_;
  // The step block: the step plan (derive_step_plan()) and the episode counters. Observations
  // of one float Box are checked in place; other spaces with a float leaf (Dict) leaf by leaf.
  enum class FiniteCheck : std::uint8_t { None, Float32, Float64, Leaves };
  // Why a step leaves the inline path for step_detoured(): one bit per rarer case, so that
  // the common step tests one byte for all of them.
  enum Detour : std::uint8_t {
    kNeedsReset = 1,      // no episode under way: step() throws
    kInfoWritten = 2,     // mutable_info() was called since step() last cleared num_scalars
    kWrapper = 4,         // forward_views_to(): no finite checks, the wrapped env made the values
    kMasked = 8,          // Discrete actions with a mask to consult
    kStrictActions = 16,  // Box actions checked against their bounds (validate_action)
  };
  std::uint8_t detours_ = kNeedsReset;
  bool has_detour(Detour d) const { return (detours_ & d) != 0; }
  void set_detour(Detour d, bool on) {
    detours_ = static_cast<std::uint8_t>(on ? (detours_ | d) : (detours_ & ~d));
  }
  bool step_plan_stale_ = false;  // mutable_spec() was called: derive again at reset()
  FiniteCheck finite_check_ = FiniteCheck::None;
  std::size_t obs_bytes_ = 0;
  std::size_t finite_count_ = 0;  // Float32/Float64: the Box's elements
  std::int64_t action_start_ = 0, action_n_ = 0;  // a Discrete int64 action space, else n 0
  std::size_t action_floats_ = 0;  // a float32 Box action space: its elements (checked inline)
  // The most steps an episode takes without reaching the time limit: spec_.max_episode_steps - 1,
  // or the largest value without a limit. Kept here for step().
  std::uint64_t steps_within_limit_ = ~std::uint64_t{0};
  std::int64_t elapsed_ = 0;
  double episode_return_ = 0.0;
  double single_agent_reward_ = 0.0;
  std::span<const std::uint8_t> mask_view_;
};

// An env whose internal state is a vector of doubles that can be read and set (the state
// Gymnasium keeps in env.unwrapped.state for classic control). Used by `rlzoo env replay`.
class StateAccess {
 public:
  virtual ~StateAccess() = default;
  virtual std::vector<double> get_state() const = 0;
  // Sets the state and writes the matching observation. Throws UserError for a wrong size.
  virtual void set_state(std::span<const double> state, Bytes obs) = 0;
};

// An env that can draw its current state as text (grid worlds): `rlzoo enjoy --render`.
class TextRender {
 public:
  virtual ~TextRender() = default;
  virtual std::string render_text() const = 0;
};

}  // namespace rlzoo

// The step's inline definitions (Env::step, the run loop), in a header of their own.
#include "core/env/env_step.h"  // IWYU pragma: export
