// SeCBAD's inference blocks: the change-point recursion finds the true segment lengths of a
// synthetic sequence within a few steps of each change, stays finite over 1,000 steps with a
// bounded number of hypotheses; the batched per-candidate GRU equals running each candidate alone.
#include <cmath>

#include <gtest/gtest.h>

#include "algorithms/secbad/candidate_encoder.h"
#include "algorithms/secbad/segment_posterior.h"
#include "core/common/rng.h"
#include "envs/contexts/piecewise_context.h"

namespace rlzoo::secbad {
namespace {

constexpr double kLog2Pi = 1.8378770664093453;
double log_normal(double x, double mean, double var) { return -0.5 * (kLog2Pi + std::log(var) + (x - mean) * (x - mean) / var); }

// Rewards r_t = mu_k + N(0, 1) with mu_k ~ N(0, 3^2) redrawn at each change (segments of
// floor(max(N(15, 4), 4)) steps). A hypothesis of length g predicts r_t from the conjugate
// posterior over mu given the previous g - 1 rewards; a new segment from the prior N(0, 9 + 1).
struct Synthetic {
  std::vector<double> rewards;
  std::vector<std::int64_t> true_length;  // segment steps up to and including t
  std::vector<double> jump;               // |mu_k - mu_{k-1}| of the segment holding t
};

Synthetic synthetic(std::int64_t steps, std::uint64_t seed, const SegmentConfig& seg) {
  Rng rng(seed);
  Synthetic s;
  std::int64_t left = 0, g = 0;
  double mu = 0, jump = 0;
  for (std::int64_t t = 0; t < steps; ++t) {
    if (left == 0) {
      const double next = 3.0 * rng.normal();
      jump = t == 0 ? 1e9 : std::abs(next - mu);
      left = seg.sample(rng), g = 0, mu = next;
    }
    --left, ++g;
    s.rewards.push_back(mu + rng.normal());
    s.true_length.push_back(g);
    s.jump.push_back(jump);
  }
  return s;
}

double predictive(const std::vector<double>& r, std::int64_t t, std::int64_t g) {
  // posterior over mu from r[t-g+1 .. t-1] (g - 1 values), prior N(0, 9), noise 1
  double n = 0, sum = 0;
  for (std::int64_t k = t - g + 1; k < t; ++k) n += 1, sum += r[static_cast<std::size_t>(k)];
  const double var = 1.0 / (1.0 / 9.0 + n), mean = var * sum;
  return log_normal(r[static_cast<std::size_t>(t)], mean, var + 1.0);
}

TEST(SegmentPosterior, FindsTheTrueSegmentLengthsSoonAfterEachChange) {
  SegmentConfig seg;
  seg.mean = 15, seg.std = 4, seg.min = 4, seg.jitter = false;
  Rng prior_rng(3);
  SegmentPosterior post(SegmentPrior::estimate(seg, 1000, prior_rng, 1000));
  const auto s = synthetic(1000, 11, seg);
  post.reset();
  int judged = 0, right = 0;
  for (std::int64_t t = 0; t < 1000; ++t) {
    std::vector<double> ll;
    for (auto g : post.lengths()) ll.push_back(predictive(s.rewards, t, g + 1));
    post.update(ll, log_normal(s.rewards[static_cast<std::size_t>(t)], 0.0, 10.0));
    // Judged from 5 steps after each change whose mean moved by at least 2 noise deviations
    // (smaller jumps are indistinguishable from noise for longer): the posterior mass within
    // +-2 steps of the true length.
    const auto k = static_cast<std::size_t>(t);
    if (s.true_length[k] >= 5 && s.jump[k] >= 2.0) {
      double mass = 0;
      for (std::size_t i = 0; i < post.size(); ++i)
        if (std::abs(post.lengths()[i] - s.true_length[k]) <= 2) mass += std::exp(post.log_probs()[i]);
      ++judged;
      right += mass > 0.5;
    }
  }
  EXPECT_GT(judged, 200);
  EXPECT_GT(static_cast<double>(right) / judged, 0.9) << right << " of " << judged;
}

TEST(SegmentPosterior, StaysFiniteAndBoundedOverAThousandSteps) {
  SegmentConfig seg;
  seg.mean = 80, seg.std = 20, seg.min = 10, seg.jitter = false;
  SegmentPosterior post(SegmentPrior::constant(80.0), 1e-8, 64);
  const auto s = synthetic(1000, 5, seg);
  post.reset();
  std::size_t most = 0;
  for (std::int64_t t = 0; t < 1000; ++t) {
    std::vector<double> ll;
    for (auto g : post.lengths()) ll.push_back(predictive(s.rewards, t, g + 1));
    post.update(ll, log_normal(s.rewards[static_cast<std::size_t>(t)], 0.0, 10.0));
    for (double lp : post.log_probs()) ASSERT_TRUE(std::isfinite(lp)) << "step " << t;
    EXPECT_NEAR(log_sum_exp(post.log_probs()), 0.0, 1e-9);
    most = std::max(most, post.size());
  }
  EXPECT_LE(most, 64u);
  // Even extreme likelihoods (far below double's range as probabilities) stay finite.
  std::vector<double> tiny(post.size(), -5000.0);
  post.update(tiny, -4000.0);
  for (double lp : post.log_probs()) EXPECT_TRUE(std::isfinite(lp));
  EXPECT_EQ(post.map_length(), 1);
}

TEST(CandidateEncoder, BatchedStepsEqualRunningEachCandidateAlone) {
  torch::manual_seed(2);
  torch::nn::GRUCell cell(torch::nn::GRUCellOptions(3, 6));
  CandidateEncoder enc(cell);
  const auto xs = torch::randn({12, 3});
  torch::NoGradGuard no_grad;
  for (int t = 0; t < 12; ++t) {
    enc.step(xs[t]);
    if (t == 7) {  // prune some candidates on the way
      const std::vector<std::int64_t> keep{1, 3, 4, 8};
      enc.keep(keep);
    }
  }
  ASSERT_EQ(enc.size(), 8);  // 4 kept at t = 7 (then 5 of them), plus 4 new ones
  for (std::int64_t i = 0; i < enc.size(); ++i) {
    const auto g = enc.lengths()[static_cast<std::size_t>(i)];
    auto h = torch::zeros({1, 6});
    for (std::int64_t t = 12 - g; t < 12; ++t) h = cell->forward(xs[t].unsqueeze(0), h);
    EXPECT_TRUE(torch::allclose(enc.hidden()[i], h[0], 1e-5, 1e-6)) << "candidate of length " << g;
  }
}

}  // namespace
}  // namespace rlzoo::secbad
