// Piecewise-stable contexts (SeCBAD's setting): the hidden context of a ContextualEnv stays
// fixed for a random number of steps, then changes abruptly to a fresh draw, several times per
// episode.
//
//  * Segment lengths: floor(max(N(mean, std), min)) by default (SeCBAD's MuJoCo tasks use mean
//    80, std 20, min 10), or `constant` (always mean), or `geometric` (a change after each step
//    with probability 1 / mean, at least min).
//  * At reset the first context and segment length are drawn; when a segment's steps are used
//    up, the next step starts a new segment with a fresh context (drawn i.i.d., so consecutive
//    segments can be alike).
//  * With jitter on, every step inside a segment uses the segment's context perturbed by the
//    task's own jitter (ContextualEnv::jitter); the segment's base context is kept.
//  * Diagnostics and the oracle-segmentation training mode read the truth from info():
//    "segment_step" (steps of the current segment taken before this observation: 0 right after
//    a change or a reset) and "segment_change" (1 when the next step starts a new segment with
//    a new context, including the first step of an episode).
// The wrapper draws from its own Rng (reseeded from reset's seed), so the inner env's random
// stream is unchanged.
#pragma once

#include <string>
#include <vector>

#include "core/config/schema.h"
#include "core/env/contextual.h"
#include "core/wrappers/wrapper.h"

namespace rlzoo {

struct SegmentConfig {
  std::string distribution = "normal";  // normal | constant | geometric
  double mean = 80.0;
  double std = 20.0;
  std::int64_t min = 10;
  bool jitter = true;

  static void describe(Fields<SegmentConfig>& f);
  // One segment length from this distribution.
  std::int64_t sample(Rng& rng) const;
};

class PiecewiseContext : public Wrapper {
 public:
  // `env` (or an env it wraps) must implement ContextualEnv; throws UserError otherwise.
  PiecewiseContext(std::unique_ptr<Env> env, SegmentConfig segments);

  const SegmentConfig& segments() const { return segments_; }
  // The base context of the current segment, its length, and the steps taken in it.
  const std::vector<double>& segment_context() const { return base_; }
  std::int64_t segment_length() const { return length_; }
  std::int64_t segment_step() const { return step_; }
  // Every segment length drawn since construction (for tests and diagnostics).
  const std::vector<std::int64_t>& drawn_lengths() const { return drawn_; }

 protected:
  void do_reset(std::optional<std::uint64_t> seed, Bytes obs) override;
  StepResult do_step(ConstBytes action, Bytes obs) override;
  nlohmann::json do_save_state() const override;
  void do_load_state(const nlohmann::json& state, Bytes obs) override;

 private:
  void new_segment();
  void apply_context();
  void report(bool change);

  ContextualEnv* contextual_ = nullptr;
  SegmentConfig segments_;
  Rng rng_;
  std::vector<double> base_;
  std::int64_t length_ = 0, step_ = 0;
  std::vector<std::int64_t> drawn_;
};

}  // namespace rlzoo
