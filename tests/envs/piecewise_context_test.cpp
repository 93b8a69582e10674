// Piecewise-stable contexts: segment lengths follow the configured distribution, change points
// are reported where the context is redrawn, jitter keeps the segment's base, state round trips;
// SeCBAD's grid task.
#include <cmath>
#include <map>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/env/conformance.h"
#include "core/registry/env_registry.h"
#include "envs/contexts/piecewise_context.h"
#include "envs/builtin.h"
#include "envs/gridworld/secbad_grid.h"
#include "tests/support/test_paths.h"

namespace rlzoo {
namespace {

double phi(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

// Mean and variance of floor(max(N(mu, sigma), m)), from its probability mass function.
std::pair<double, double> floored_normal_moments(double mu, double sigma, int m) {
  double mean = 0, second = 0;
  for (int k = m; k < mu + 12 * sigma + 2; ++k) {
    const double p = k == m ? phi((m + 1 - mu) / sigma) : phi((k + 1 - mu) / sigma) - phi((k - mu) / sigma);
    mean += p * k;
    second += p * k * k;
  }
  return {mean, second - mean * mean};
}

// Steps a PiecewiseContext around the grid with no time limit for `steps` steps.
std::unique_ptr<PiecewiseContext> run(SegmentConfig s, int steps, std::vector<int>* change_steps = nullptr) {
  auto env = std::make_unique<PiecewiseContext>(std::make_unique<SecbadGridEnv>(), s);
  std::vector<float> obs(2);
  auto o = std::as_writable_bytes(std::span(obs));
  env->reset(123, o);
  for (int t = 0; t < steps; ++t) {
    env->step(std::int64_t{t % 5}, o);
    if (change_steps && env->info().scalar("segment_change") == 1.0) change_steps->push_back(t + 1);
  }
  return env;
}

TEST(PiecewiseContext, SegmentLengthsFollowTheConfiguredDistribution) {
  for (auto [mu, sigma, m] : {std::tuple{80.0, 20.0, 10}, std::tuple{15.0, 5.0, 3}, std::tuple{4.0, 6.0, 2}}) {
    SegmentConfig s;
    s.mean = mu, s.std = sigma, s.min = m, s.jitter = false;
    const auto env = run(s, 200000);
    const auto& l = env->drawn_lengths();
    double mean = 0, var = 0;
    for (auto x : l) mean += static_cast<double>(x);
    mean /= static_cast<double>(l.size());
    for (auto x : l) var += (static_cast<double>(x) - mean) * (static_cast<double>(x) - mean);
    var /= static_cast<double>(l.size() - 1);
    const auto [em, ev] = floored_normal_moments(mu, sigma, m);
    EXPECT_NEAR(mean, em, 4 * std::sqrt(ev / static_cast<double>(l.size()))) << mu << " " << sigma << " " << m;
    EXPECT_NEAR(var, ev, 0.06 * ev) << mu << " " << sigma << " " << m;
    EXPECT_GE(*std::min_element(l.begin(), l.end()), m);
  }
  SegmentConfig c;
  c.distribution = "constant", c.mean = 7, c.min = 1, c.jitter = false;
  const auto constant = run(c, 1000);
  for (auto x : constant->drawn_lengths()) EXPECT_EQ(x, 7);
  SegmentConfig g;
  g.distribution = "geometric", g.mean = 10, g.min = 1, g.jitter = false;
  const auto geometric = run(g, 100000);
  const auto& gl = geometric->drawn_lengths();
  double gm = 0;
  for (auto x : gl) gm += static_cast<double>(x);
  EXPECT_NEAR(gm / static_cast<double>(gl.size()), 10.0, 0.3);
}

TEST(PiecewiseContext, ChangePointsAreReportedWhereTheContextIsRedrawn) {
  SegmentConfig s;
  s.mean = 6, s.std = 2, s.min = 2, s.jitter = false;
  std::vector<int> changes;
  const auto env = run(s, 500, &changes);
  // The steps between reported changes are the drawn segment lengths, in order.
  int previous = 0;
  for (std::size_t i = 0; i < changes.size(); ++i) {
    EXPECT_EQ(changes[i] - previous, env->drawn_lengths()[i]) << "segment " << i;
    previous = changes[i];
  }
  EXPECT_GT(changes.size(), 50u);
  // Goals are drawn over the 21 cells outside the start corner.
  std::map<std::pair<int, int>, int> goals;
  Rng rng(1);
  SecbadGridEnv grid;
  for (int i = 0; i < 21000; ++i) {
    const auto c = grid.sample_context(rng);
    EXPECT_FALSE(c[0] < 2 && c[1] < 2);
    ++goals[{static_cast<int>(c[0]), static_cast<int>(c[1])}];
  }
  EXPECT_EQ(goals.size(), 21u);
  for (const auto& [cell, n] : goals) EXPECT_NEAR(n, 1000, 150);
}

// A context of one number whose jitter adds N(0, 1).
class NoisyContextEnv : public Env, public ContextualEnv {
 public:
  NoisyContextEnv() : Env(EnvSpec{"Noisy-v0", Space::box(-1e9, 1e9, {1}), Space::discrete(1), 0}) {}
  std::vector<double> sample_context(Rng& rng) const override { return {100.0 * rng.uniform()}; }
  void set_context(std::span<const double> c) override { value_ = c[0]; }
  std::vector<double> context() const override { return {value_}; }
  std::vector<double> jitter(std::span<const double> base, Rng& rng) const override { return {base[0] + rng.normal()}; }

 protected:
  void do_reset(std::optional<std::uint64_t>, Bytes obs) override { as_span<float>(obs)[0] = 0; }
  StepResult do_step(ConstBytes, Bytes obs) override {
    as_span<float>(obs)[0] = static_cast<float>(value_);
    return {value_, false, false};
  }

 private:
  double value_ = 0;
};

TEST(PiecewiseContext, JitterPerturbsAroundTheSegmentsBase) {
  SegmentConfig s;
  s.distribution = "constant", s.mean = 1000;
  PiecewiseContext env(std::make_unique<NoisyContextEnv>(), s);
  std::vector<float> obs(1);
  auto o = std::as_writable_bytes(std::span(obs));
  env.reset(5, o);
  const double base = env.segment_context()[0];
  double sum = 0, sq = 0;
  const int n = 900;
  for (int t = 0; t < n; ++t) {
    const double r = env.step(std::int64_t{0}, o).reward - base;
    sum += r, sq += r * r;
  }
  EXPECT_EQ(env.segment_context()[0], base);
  EXPECT_NEAR(sum / n, 0.0, 0.15);
  EXPECT_NEAR(sq / n, 1.0, 0.15);
}

TEST(PiecewiseContext, RefusesEnvsWithoutAContextAndRoundTripsItsState) {
  register_builtin_envs();
  EXPECT_NE(test::error_of([] { PiecewiseContext(make_env("CartPole-v1"), SegmentConfig{}); }).find("no context"),
            std::string::npos);
  auto a = make_env("SecbadGrid-v0"), b = make_env("SecbadGrid-v0");
  std::vector<float> oa(2), ob(2);
  auto pa = std::as_writable_bytes(std::span(oa)), pb = std::as_writable_bytes(std::span(ob));
  a->reset(9, pa);
  for (int t = 0; t < 17; ++t) a->step(std::int64_t{t % 5}, pa);
  b->reset(1, pb);
  b->load_state(a->save_state(), pb);
  for (int t = 0; t < 40; ++t) {
    const auto ra = a->step(std::int64_t{(t * 3) % 5}, pa), rb = b->step(std::int64_t{(t * 3) % 5}, pb);
    ASSERT_EQ(ra.reward, rb.reward) << t;
    ASSERT_EQ(oa, ob);
    ASSERT_EQ(a->info().scalar("segment_change"), b->info().scalar("segment_change"));
  }
}

TEST(SecbadGrid, RewardsAndConformance) {
  SecbadGridEnv g;
  std::vector<float> obs(2);
  auto o = std::as_writable_bytes(std::span(obs));
  g.reset(0, o);
  const std::vector<double> goal{0, 2};
  g.set_context(goal);
  EXPECT_DOUBLE_EQ(g.step(std::int64_t{2}, o).reward, -0.1);  // right to (0, 1)
  const auto r = g.step(std::int64_t{2}, o);                    // right onto the goal
  EXPECT_DOUBLE_EQ(r.reward, 1.0);
  EXPECT_FALSE(r.terminated);
  EXPECT_DOUBLE_EQ(g.step(std::int64_t{0}, o).reward, 1.0);   // staying keeps collecting
  EXPECT_DOUBLE_EQ(g.step(std::int64_t{1}, o).reward, 1.0);   // up off the grid: stays
  const std::vector<double> corner{1, 1};
  EXPECT_NE(test::error_of([&] { g.set_context(corner); }).find("not one of the 21"), std::string::npos);
  register_builtin_envs();
  const auto report = check_env_conformance([] { return make_env("SecbadGrid-v0"); });
  EXPECT_TRUE(report.ok()) << report.summary();
}

}  // namespace
}  // namespace rlzoo
