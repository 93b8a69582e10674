// SeCBAD's belief over the length of the current segment (notes §2.2): a Bayesian online
// change-point recursion in log space.
//
// G_t is the number of steps of the current segment up to and including step t. Its prior
// transition has two branches: G_t = G_{t-1} + 1 (no change) with probability 1 - h(G_{t-1}),
// or G_t = 1 (a change) with probability h(G_{t-1}), where h is the hazard. With L_t(g) the
// likelihood of step t's transition under the hypothesis that the segment started g - 1 steps
// before it (the encoder run over those steps), and L_t(new) the likelihood under a fresh
// context (the encoder's prior):
//   P_t(g)  ∝ P_{t-1}(g - 1) (1 - h(g - 1)) L_t(g)              for g >= 2
//   P_t(1)  ∝ sum_k P_{t-1}(k) h(k) L_t(new)
// Everything is kept as log-probabilities (products of Gaussian densities underflow within a
// few hundred steps); hypotheses whose probability falls below `prune_below` are dropped, and at
// most `max_hypotheses` are kept (the most probable), so the cost per step stays bounded.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/common/rng.h"

namespace rlzoo {
struct SegmentConfig;
}

namespace rlzoo::secbad {

// h(g) = p(a change after a segment of g steps), g = 1, 2, ...; beyond the table, the last entry.
struct SegmentPrior {
  std::vector<double> hazard;  // hazard[g - 1]
  double at(std::int64_t g) const;

  // A constant hazard 1 / mean (the code's "inaccurate prior").
  static SegmentPrior constant(double mean);
  // Estimated by Monte Carlo from the segment-length distribution, as the released code does:
  // `sequences` simulated sequences of `horizon` steps, transitions counted per length.
  static SegmentPrior estimate(const SegmentConfig& segments, std::int64_t horizon, Rng& rng,
                               std::int64_t sequences = 10'000);
};

class SegmentPosterior {
 public:
  explicit SegmentPosterior(SegmentPrior prior, double prune_below = 1e-8, std::int64_t max_hypotheses = 0);

  // The start of an episode: one hypothesis, G = 0 steps so far (the first update makes it 1).
  void reset();
  // One step. log_lik_continue[i] is log L_t for continuing hypothesis lengths()[i] (its segment
  // then has lengths()[i] + 1 steps); log_lik_new is log L_t(new). After the update the
  // hypotheses are 1 (new) and the continued ones, most recent start first.
  void update(std::span<const double> log_lik_continue, double log_lik_new);

  // Live hypotheses: segment lengths g (ascending) and their normalised log-probabilities.
  std::span<const std::int64_t> lengths() const { return lengths_; }
  std::span<const double> log_probs() const { return log_probs_; }
  // The most probable length (the released code's choice), the first on ties.
  std::int64_t map_length() const;
  std::size_t size() const { return lengths_.size(); }
  // Puts back a posterior read from lengths() and log_probs() (a checkpoint).
  void restore(std::vector<std::int64_t> lengths, std::vector<double> log_probs);

 private:
  SegmentPrior prior_;
  double log_prune_;
  std::int64_t max_hypotheses_;
  std::vector<std::int64_t> lengths_, next_lengths_;
  std::vector<double> log_probs_, next_log_probs_;
};

double log_sum_exp(std::span<const double> x);

}  // namespace rlzoo::secbad
