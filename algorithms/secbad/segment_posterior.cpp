#include "algorithms/secbad/segment_posterior.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "core/common/error.h"
#include "envs/contexts/piecewise_context.h"

namespace rlzoo::secbad {

double SegmentPrior::at(std::int64_t g) const {
  if (hazard.empty()) return 0.0;
  const auto i = static_cast<std::size_t>(std::clamp<std::int64_t>(g - 1, 0, static_cast<std::int64_t>(hazard.size()) - 1));
  return hazard[i];
}

SegmentPrior SegmentPrior::constant(double mean) {
  RLZOO_CHECK(mean >= 1.0, "a mean segment length of at least 1");
  return {{1.0 / mean}};
}

SegmentPrior SegmentPrior::estimate(const SegmentConfig& segments, std::int64_t horizon, Rng& rng,
                                    std::int64_t sequences) {
  std::vector<double> changes(static_cast<std::size_t>(horizon) + 1, 0.0), seen(changes.size(), 0.0);
  for (std::int64_t s = 0; s < sequences; ++s) {
    // Steps 0 .. horizon - 1; a transition leaves every step but the last.
    std::int64_t t = 0;
    while (t < horizon - 1) {
      const std::int64_t len = segments.sample(rng);
      for (std::int64_t g = 1; g <= len && t < horizon - 1; ++g, ++t) {
        seen[static_cast<std::size_t>(g)] += 1;
        if (g == len) changes[static_cast<std::size_t>(g)] += 1;
      }
    }
  }
  SegmentPrior p;
  double last = 0.5;
  for (std::size_t g = 1; g < changes.size(); ++g) {
    if (seen[g] > 0) last = changes[g] / seen[g];
    p.hazard.push_back(std::clamp(last, 1e-6, 1.0 - 1e-6));  // keep both branches possible
  }
  return p;
}

double log_sum_exp(std::span<const double> x) {
  if (x.empty()) return -std::numeric_limits<double>::infinity();
  const double m = *std::max_element(x.begin(), x.end());
  if (!std::isfinite(m)) return m;
  double s = 0;
  for (double v : x) s += std::exp(v - m);
  return m + std::log(s);
}

SegmentPosterior::SegmentPosterior(SegmentPrior prior, double prune_below, std::int64_t max_hypotheses)
    : prior_(std::move(prior)), log_prune_(std::log(prune_below)), max_hypotheses_(max_hypotheses) {
  reset();
}

void SegmentPosterior::reset() {
  lengths_.assign(1, 0);
  log_probs_.assign(1, 0.0);
}

void SegmentPosterior::restore(std::vector<std::int64_t> lengths, std::vector<double> log_probs) {
  RLZOO_CHECK(!lengths.empty() && lengths.size() == log_probs.size(),
              "SegmentPosterior: a restored posterior needs one log-probability per length");
  lengths_ = std::move(lengths);
  log_probs_ = std::move(log_probs);
}

void SegmentPosterior::update(std::span<const double> log_lik_continue, double log_lik_new) {
  RLZOO_CHECK(log_lik_continue.size() == lengths_.size(), "one likelihood per live hypothesis");
  next_lengths_.clear();
  next_log_probs_.clear();
  const bool start = lengths_.size() == 1 && lengths_[0] == 0;
  if (start) {  // the first step of an episode begins a segment
    lengths_.assign(1, 1);
    log_probs_.assign(1, 0.0);
    return;
  }
  // The change branch: every hypothesis may end here.
  std::vector<double> ends(lengths_.size());
  for (std::size_t i = 0; i < lengths_.size(); ++i) ends[i] = log_probs_[i] + std::log(prior_.at(lengths_[i]));
  next_lengths_.push_back(1);
  next_log_probs_.push_back(log_sum_exp(ends) + log_lik_new);
  for (std::size_t i = 0; i < lengths_.size(); ++i) {
    next_lengths_.push_back(lengths_[i] + 1);
    next_log_probs_.push_back(log_probs_[i] + std::log1p(-prior_.at(lengths_[i])) + log_lik_continue[i]);
  }
  const double z = log_sum_exp(next_log_probs_);
  RLZOO_CHECK(std::isfinite(z), "the segment posterior lost all mass (non-finite likelihoods?)");
  // Normalise, prune, cap.
  lengths_.clear();
  log_probs_.clear();
  std::vector<std::size_t> keep;
  for (std::size_t i = 0; i < next_lengths_.size(); ++i)
    if (next_log_probs_[i] - z >= log_prune_ || i == 0) keep.push_back(i);
  if (max_hypotheses_ > 0 && static_cast<std::int64_t>(keep.size()) > max_hypotheses_) {
    std::partial_sort(keep.begin(), keep.begin() + max_hypotheses_, keep.end(),
                      [&](std::size_t a, std::size_t b) { return next_log_probs_[a] > next_log_probs_[b]; });
    keep.resize(static_cast<std::size_t>(max_hypotheses_));
    std::sort(keep.begin(), keep.end());
  }
  std::vector<double> kept;
  for (auto i : keep) kept.push_back(next_log_probs_[i]);
  const double z2 = log_sum_exp(kept);
  for (auto i : keep) {
    lengths_.push_back(next_lengths_[i]);
    log_probs_.push_back(next_log_probs_[i] - z2);
  }
}

std::int64_t SegmentPosterior::map_length() const {
  const auto it = std::max_element(log_probs_.begin(), log_probs_.end());
  return lengths_[static_cast<std::size_t>(it - log_probs_.begin())];
}

}  // namespace rlzoo::secbad
