// The standard wrappers (Gymnasium semantics unless noted).
//
//   TimeLimit                truncates after max_episode_steps steps of this wrapper.
//   RecordEpisodeStatistics  keeps the last `window` episode returns/lengths/durations.
//   ClipAction               clips Box actions to the inner bounds; its own action space is
//                            unbounded (as Gymnasium's).
//   RescaleAction            exposes a Box action space [min, max] mapped linearly to the
//                            inner bounds.
//   NormalizeObservation     (obs - mean) / sqrt(var + eps) with running statistics;
//                            optional clipping (Gymnasium: none; SB3's VecNormalize: 10).
//   NormalizeReward          reward / sqrt(var(discounted return) + eps), as Gymnasium 1.x.
//   SelectObservation        keeps chosen entries of a Box observation: partially observable
//                            variants of an env (CartPoleNoVel-v1 sees CartPole-v1's cart
//                            position and pole angle, not the velocities).
// The normalisers' statistics are updated only while update is on (freeze for evaluation)
// and are saved and restored with checkpoints through save_state()/load_state().
#pragma once

#include <deque>
#include <nlohmann/json.hpp>

#include "core/common/running_mean_std.h"
#include "core/wrappers/wrapper.h"

namespace rlzoo {

// Wrappers with state worth checkpointing.
class StatefulWrapper {
 public:
  virtual ~StatefulWrapper() = default;
  virtual nlohmann::json save_state() const = 0;
  virtual void load_state(const nlohmann::json& state) = 0;
  // Turns statistics updates on (training) or off (evaluation).
  virtual void set_update(bool update) = 0;
};

// The states of all stateful wrappers around an env, outermost first, and their restoration.
nlohmann::json save_wrapper_states(const Env& env);
void load_wrapper_states(Env& env, const nlohmann::json& states);
void set_wrappers_update(Env& env, bool update);

class TimeLimit : public Wrapper {
 public:
  TimeLimit(std::unique_ptr<Env> env, std::int64_t max_episode_steps);
};

class RecordEpisodeStatistics : public Wrapper {
 public:
  explicit RecordEpisodeStatistics(std::unique_ptr<Env> env, std::size_t window = 100);
  const std::deque<double>& return_queue() const { return returns_; }
  const std::deque<std::int64_t>& length_queue() const { return lengths_; }
  const std::deque<double>& time_queue() const { return times_; }  // seconds per episode
  std::int64_t episode_count() const { return episodes_; }

 protected:
  void do_reset(std::optional<std::uint64_t> seed, Bytes obs) override;
  StepResult do_step(ConstBytes action, Bytes obs) override;

 private:
  std::size_t window_;
  std::deque<double> returns_, times_;
  std::deque<std::int64_t> lengths_;
  std::int64_t episodes_ = 0;
  double start_time_ = 0;
};

class ClipAction : public Wrapper {
 public:
  explicit ClipAction(std::unique_ptr<Env> env);

 protected:
  StepResult do_step(ConstBytes action, Bytes obs) override;

 private:
  std::vector<float> clipped_;
};

class RescaleAction : public Wrapper {
 public:
  RescaleAction(std::unique_ptr<Env> env, double min_action, double max_action);

 protected:
  StepResult do_step(ConstBytes action, Bytes obs) override;

 private:
  double min_, max_;
  std::vector<float> scaled_;
};

class NormalizeObservation : public Wrapper, public StatefulWrapper {
 public:
  explicit NormalizeObservation(std::unique_ptr<Env> env, double epsilon = 1e-8, double clip = 0.0);
  nlohmann::json save_state() const override;
  void load_state(const nlohmann::json& state) override;
  void set_update(bool update) override { update_ = update; }
  const RunningMeanStd& stats() const { return rms_; }

 protected:
  void do_reset(std::optional<std::uint64_t> seed, Bytes obs) override;
  StepResult do_step(ConstBytes action, Bytes obs) override;

 private:
  void normalize(Bytes obs);
  RunningMeanStd rms_;
  double epsilon_, clip_;
  bool update_ = true;
  std::vector<double> scratch_;
};

class NormalizeReward : public Wrapper, public StatefulWrapper {
 public:
  explicit NormalizeReward(std::unique_ptr<Env> env, double gamma = 0.99, double epsilon = 1e-8);
  nlohmann::json save_state() const override;
  void load_state(const nlohmann::json& state) override;
  void set_update(bool update) override { update_ = update; }
  const RunningMeanStd& stats() const { return rms_; }

 protected:
  StepResult do_step(ConstBytes action, Bytes obs) override;

 private:
  RunningMeanStd rms_;
  double gamma_, epsilon_;
  double discounted_return_ = 0.0;
  bool update_ = true;
};

// Keeps the entries `indices` (into the flattened inner observation, in this order) of a Box
// observation; the observation space is a 1-D Box of those entries' bounds and dtype. The
// dynamics are the inner env's. `id` renames the env (empty: the inner env's id), as a
// registered variant needs its own id. Throws UserError for a non-Box observation space or an
// index out of range.
class SelectObservation : public Wrapper {
 public:
  SelectObservation(std::unique_ptr<Env> env, std::vector<std::int64_t> indices, std::string id = "");
  const std::vector<std::int64_t>& indices() const { return indices_; }

 protected:
  void do_reset(std::optional<std::uint64_t> seed, Bytes obs) override;
  StepResult do_step(ConstBytes action, Bytes obs) override;
  void do_load_state(const nlohmann::json& state, Bytes obs) override;

 private:
  void select(Bytes obs) const;  // full_ -> obs
  std::vector<std::int64_t> indices_;
  std::size_t element_size_;
  std::vector<std::byte> full_;  // the inner env's observation
};

}  // namespace rlzoo
