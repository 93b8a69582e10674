// Vector envs: N envs stepped as one batch into contiguous [N, ...] buffers, with autoreset.
//
//   SyncVectorEnv venv(make_envs("CartPole-v1", 64));
//   venv.reset(seed);                        // env i is reset with seed + i
//   venv.step(actions);                      // N * action_space.byte_size() bytes
//   venv.observations<float>();              // [N * obs numel], row i = env i
//
// Autoreset is SAME-STEP (as Stable-Baselines3's VecEnv, not Gymnasium 1.x's next-step
// default): when env i terminates or truncates during step(), its true final observation is
// copied to final_observation row i, the episode statistics are kept in episode_returns() /
// episode_lengths(), the env is reset at once, and observation row i holds the FIRST
// observation of the next episode. rewards/terminated/truncated row i are those of the final
// step. A learner bootstraps a truncated episode from final_observation row i.
//
// NEXT-STEP autoreset (Gymnasium 1.x's default), where set_autoreset_mode asks for it: an env
// whose episode ends keeps its final observation in observation row i (final_observation row
// i gets a copy, the statistics are kept as above) and is reset on the NEXT step() instead of
// stepping, its action ignored: that step's row i is the first observation of the next
// episode, with reward 0 and neither flag set. resets_pending() says which rows those are; their
// action-mask rows are all 1 meanwhile (any action, ignored).
//
// SyncVectorEnv steps all envs on the calling thread; ThreadedVectorEnv has a pool of threads
// (the caller's thread is one of them) step contiguous chunks of envs, each thread its own
// slice first and then what the others have not reached. Both give identical results for
// identical seeds and actions.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include "core/env/env.h"
#include "core/vector/worker_pool.h"

namespace rlzoo {

enum class AutoresetMode { same_step, next_step };

class VectorEnv {
 public:
  virtual ~VectorEnv();

  std::int64_t num_envs() const { return static_cast<std::int64_t>(envs_.size()); }
  const Space& single_observation_space() const { return envs_[0]->observation_space(); }
  const Space& single_action_space() const { return envs_[0]->action_space(); }
  const EnvSpec& spec() const { return envs_[0]->spec(); }
  Env& env(std::int64_t i) { return *envs_[static_cast<std::size_t>(i)]; }
  const Env& env(std::int64_t i) const { return *envs_[static_cast<std::size_t>(i)]; }

  // Resets every env (env i with seed + i when a seed is given).
  void reset(std::optional<std::uint64_t> seed = std::nullopt);
  // Same-step unless set otherwise. A UserError while a next-step reset is pending (the envs
  // that wait for it could not be stepped same-step): set it before stepping, or after reset().
  void set_autoreset_mode(AutoresetMode mode);
  AutoresetMode autoreset_mode() const { return autoreset_; }
  // Next-step mode: 1 where the env's episode ended on the last step, so that the next step()
  // resets it and ignores its action. All 0 in same-step mode.
  std::span<const std::uint8_t> resets_pending() const { return reset_next_; }
  // Steps every env with its row of `actions` (num_envs() * action bytes); autoresets.
  void step(ConstBytes actions);
  // As step(actions), then after_slice(begin, end) for every slice of envs, on the thread that
  // stepped it, once its rows (observations, rewards, flags, final observations, statistics,
  // masks) are final: the slices cover [0, num_envs()) once, and calls on different threads run
  // concurrently, so after_slice must touch only rows [begin, end) of what it writes. For work
  // per row that should run where the rows are still in cache, such as copying them out (the
  // Python binding's batch copies). Not called for a slice whose step threw.
  void step(ConstBytes actions, const std::function<void(std::int64_t, std::int64_t)>& after_slice);
  template <class T>
  void step(std::span<const T> actions) { step(std::as_bytes(actions)); }

  // Batches, valid after reset()/step(). Rows are byte_size() of the single space.
  ConstBytes observation_bytes() const { return out().obs; }
  template <class T>
  std::span<const T> observations() const { return as_span<T>(ConstBytes(out().obs)); }
  std::span<const double> rewards() const { return out().rewards; }
  std::span<const std::uint8_t> terminated() const { return out().terminated; }
  std::span<const std::uint8_t> truncated() const { return out().truncated; }

  // Double buffering, for callers that hand the batches out without copying them (the Python
  // binding's copy=False): once on, each reset(), step() and load_state() writes the
  // observations, rewards and flags into the other of two sets, so what the previous call wrote
  // stays as it was until the call after; the accessors above show the set written last,
  // output_set() index k. A call that throws leaves the set of the last complete call current
  // (with the rows it had written into the other set). Off by default (one set). Turning it on
  // allocates the second set; it cannot be turned off.
  void enable_double_buffering();
  int current_output_set() const { return current_; }
  struct OutputSet {
    std::vector<std::byte> obs;
    std::vector<double> rewards;
    std::vector<std::uint8_t> terminated, truncated;
  };
  const OutputSet& output_set(int k) const { return out_[k]; }
  // Row i is meaningful where terminated[i] || truncated[i] on the last step.
  ConstBytes final_observation_bytes() const { return final_obs_; }
  template <class T>
  std::span<const T> final_observations() const { return as_span<T>(ConstBytes(final_obs_)); }
  std::span<const double> episode_returns() const { return episode_returns_; }
  std::span<const std::int64_t> episode_lengths() const { return episode_lengths_; }
  // [N, n] legal-action masks when the env has masks, else empty.
  std::span<const std::uint8_t> action_masks() const { return masks_; }

  // Every env's state and the current observation batch, for checkpoints that resume bit for
  // bit; load_state() leaves rewards and flags 0, as reset() does. Throws UserError when an env
  // cannot save its state.
  nlohmann::json save_state() const;
  void load_state(const nlohmann::json& state);

 protected:
  explicit VectorEnv(std::vector<std::unique_ptr<Env>> envs);
  // Runs fn(begin, end) over slices that together cover [0, num_envs()).
  virtual void for_slices(const std::function<void(std::int64_t, std::int64_t)>& fn) = 0;

 private:
  void check_action_bytes(ConstBytes actions) const;
  void step_range(std::int64_t begin, std::int64_t end, ConstBytes actions);
  // Rows [begin, end) into the current output set `o`. Returns whether every env that stepped
  // found its own reward and observation finite (StepResult::checked_finite).
  bool step_envs(OutputSet& o, std::int64_t begin, std::int64_t end, ConstBytes actions);
  void step_envs_next_step(OutputSet& o, std::int64_t begin, std::int64_t end, ConstBytes actions);
  // Row k of the action masks from env k (all 1 while its next-step reset is pending).
  void write_mask_row(std::size_t k);
  // Throws the EnvError, naming index k, when row k of the current output set is not finite
  // (for envs that check their observations at all: Env::checks_observations()).
  void check_row(std::size_t k) const;
  // Throws the EnvError of the first row in [begin, end) whose observation is not finite.
  [[noreturn, gnu::cold]] void report_non_finite_row(std::int64_t begin, std::int64_t end) const;
  // Inside a catch block: rethrows an EnvError/EnvFailure with the vector index k appended.
  [[noreturn]] void rethrow_naming_index(std::size_t k) const;
  void reset_range(std::int64_t begin, std::int64_t end, std::optional<std::uint64_t> seed);

  std::vector<std::unique_ptr<Env>> envs_;
  std::vector<Env*> env_ptrs_;  // envs_'s pointers, for Env::step_run
  bool one_env_type_ = false;   // every env of one dynamic type: runs go to its step_run()
  std::size_t obs_bytes_, act_bytes_, mask_size_;
  // Every env's observation is a float32 Box it checks itself: the vector env checks the
  // rows it stepped in one pass instead (Env::step_run leaves the check to the vector env).
  bool batch_finite_check_ = false;
  // Starts a reset() or step(): with double buffering, the other set becomes the current one.
  void next_output_set() {
    if (double_buffered_) current_ = 1 - current_;
  }
  const OutputSet& out() const { return out_[current_]; }
  OutputSet& out() { return out_[current_]; }

  OutputSet out_[2];  // the second stays empty unless double buffered
  int current_ = 0;
  bool double_buffered_ = false;
  std::vector<std::byte> final_obs_;
  std::vector<double> episode_returns_;
  std::vector<std::uint8_t> masks_;
  std::vector<std::int64_t> episode_lengths_;
  AutoresetMode autoreset_ = AutoresetMode::same_step;
  std::vector<std::uint8_t> reset_next_;  // next-step mode: reset on the next step()
};

class SyncVectorEnv : public VectorEnv {
 public:
  explicit SyncVectorEnv(std::vector<std::unique_ptr<Env>> envs);

 protected:
  void for_slices(const std::function<void(std::int64_t, std::int64_t)>& fn) override;
};

class ThreadedVectorEnv : public VectorEnv {
 public:
  ThreadedVectorEnv(std::vector<std::unique_ptr<Env>> envs, int num_threads);
  int num_threads() const { return pool_.num_threads(); }

 protected:
  void for_slices(const std::function<void(std::int64_t, std::int64_t)>& fn) override;

 private:
  // Thread k's next chunk of its home slice (chunks [k*m/t, (k+1)*m/t) of the m chunks), one
  // counter per cache line so that the threads' counters do not share one.
  struct alignas(64) ChunkCounter {
    std::atomic<std::int64_t> next{0};
  };
  WorkerPool pool_;
  std::vector<ChunkCounter> counters_;
};

// n envs made by make_env(id, kwargs).
std::vector<std::unique_ptr<Env>> make_envs(const std::string& id, std::int64_t n,
                                            const YAML::Node& kwargs = YAML::Node());
// A SyncVectorEnv when num_threads <= 1, else a ThreadedVectorEnv.
std::unique_ptr<VectorEnv> make_vector_env(const std::string& id, std::int64_t n, int num_threads = 1,
                                           const YAML::Node& kwargs = YAML::Node());

}  // namespace rlzoo
