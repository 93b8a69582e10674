// The thin products (rl/nets/thin_gemm.h) against the BLAS call they stand in for: the same
// bits, for every shape a small network's first and last layers give, each kind of beta, and
// ragged sizes that take the loops' scalar tails.
#include <gtest/gtest.h>

#include <cblas.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/platform/blas.h"
#include "rl/nets/gemm.h"
#include "rl/nets/thin_gemm.h"

namespace rlzoo {
namespace {

struct Shape {
  Trans ta, tb;
  int m, n, k;
};

std::string describe(const Shape& s, float beta) {
  return std::string(s.ta == Trans::Yes ? "T" : "N") + (s.tb == Trans::Yes ? "T" : "N") + " m=" +
         std::to_string(s.m) + " n=" + std::to_string(s.n) + " k=" + std::to_string(s.k) +
         " beta=" + std::to_string(beta);
}

// Runs the shape through cblas_sgemm and through thin_sgemm on the same random operands (some
// zeros among them, for the signs of zero) and counts the elements whose bits differ.
long differing_bits(const Shape& s, float beta, std::mt19937& rng, bool& took_thin_path) {
  const int lda = s.ta == Trans::Yes ? s.m : s.k, ldb = s.tb == Trans::Yes ? s.k : s.n;
  std::vector<float> a(static_cast<std::size_t>((s.ta == Trans::Yes ? s.k : s.m) * lda));
  std::vector<float> b(static_cast<std::size_t>((s.tb == Trans::Yes ? s.n : s.k) * ldb));
  std::vector<float> c(static_cast<std::size_t>(s.m * s.n));
  std::normal_distribution<float> normal;
  long differing = 0;
  for (int trial = 0; trial < 20; ++trial) {
    for (auto& v : a) v = rng() % 5 == 0 ? 0.0f : normal(rng);
    for (auto& v : b) v = normal(rng);
    for (auto& v : c) v = rng() % 7 == 0 ? -0.0f : normal(rng);
    auto by_blas = c, by_thin = c;
    cblas_sgemm(CblasRowMajor, s.ta == Trans::Yes ? CblasTrans : CblasNoTrans,
                s.tb == Trans::Yes ? CblasTrans : CblasNoTrans, s.m, s.n, s.k, 1.0f, a.data(), lda, b.data(), ldb,
                beta, by_blas.data(), s.n);
    took_thin_path =
        thin_sgemm(s.ta, s.tb, s.m, s.n, s.k, 1.0f, a.data(), lda, b.data(), ldb, beta, by_thin.data(), s.n);
    if (!took_thin_path) return 0;
    for (std::size_t i = 0; i < c.size(); ++i) differing += std::memcmp(&by_blas[i], &by_thin[i], sizeof(float)) != 0;
  }
  return differing;
}

TEST(ThinGemm, SameBitsAsTheBlasCall) {
  if (!own_loops_match_blas())
    GTEST_SKIP() << "the thin products stand in only for OpenBLAS's Haswell and Zen kernels; this is "
                 << detect_blas().name;
  const Shape shapes[] = {
      // CartPole's 4 -> 64 -> 64 -> 2 at batch 256: forward, then the gradients of W and of h.
      {Trans::No, Trans::Yes, 256, 64, 4},
      {Trans::Yes, Trans::No, 2, 64, 256},
      {Trans::No, Trans::No, 256, 64, 2},
      {Trans::Yes, Trans::No, 64, 4, 256},
      {Trans::Yes, Trans::No, 1, 64, 256},
      // Pendulum's 3 -> 256, acting on 8 rows, and ragged sizes for the tails.
      {Trans::No, Trans::Yes, 256, 256, 3},
      {Trans::No, Trans::Yes, 8, 64, 4},
      {Trans::No, Trans::Yes, 7, 33, 7},
      {Trans::No, Trans::No, 9, 37, 1},
      {Trans::Yes, Trans::No, 3, 45, 17},
      {Trans::Yes, Trans::No, 43, 3, 19},
      {Trans::Yes, Trans::No, 4, 4, 256},
      {Trans::Yes, Trans::No, 40, 1, 200},
      {Trans::Yes, Trans::No, 37, 2, 64},
  };
  std::mt19937 rng(7);
  for (const auto& s : shapes)
    for (float beta : {0.0f, 1.0f}) {
      bool thin = false;
      EXPECT_EQ(differing_bits(s, beta, rng, thin), 0) << describe(s, beta);
      EXPECT_TRUE(thin) << describe(s, beta) << " should take the thin path";
    }
}

TEST(ThinGemm, LeavesOtherProductsToBlas) {
  std::vector<float> a(300 * 300, 1.0f), b(300 * 300, 1.0f), c(300 * 300, 5.0f);
  // Neither side thin (or thin where BLAS's full tiles sum in another order); alpha other than
  // 1; k past one of OpenBLAS's k blocks; both transposed.
  EXPECT_FALSE(thin_sgemm(Trans::No, Trans::Yes, 64, 64, 64, 1.0f, a.data(), 64, b.data(), 64, 0.0f, c.data(), 64));
  EXPECT_FALSE(thin_sgemm(Trans::No, Trans::Yes, 64, 64, 8, 1.0f, a.data(), 8, b.data(), 8, 0.0f, c.data(), 64));
  EXPECT_FALSE(thin_sgemm(Trans::Yes, Trans::No, 4, 8, 64, 1.0f, a.data(), 4, b.data(), 8, 0.0f, c.data(), 8));
  EXPECT_FALSE(thin_sgemm(Trans::No, Trans::Yes, 64, 64, 4, 2.0f, a.data(), 4, b.data(), 4, 0.0f, c.data(), 64));
  EXPECT_FALSE(thin_sgemm(Trans::No, Trans::Yes, 64, 64, 4, 1.0f, a.data(), 4, b.data(), 4, 0.3f, c.data(), 64));
  EXPECT_FALSE(thin_sgemm(Trans::Yes, Trans::No, 2, 64, 300, 1.0f, a.data(), 2, b.data(), 64, 0.0f, c.data(), 64));
  EXPECT_FALSE(thin_sgemm(Trans::Yes, Trans::Yes, 2, 2, 2, 1.0f, a.data(), 2, b.data(), 2, 0.0f, c.data(), 2));
  for (float v : c) ASSERT_EQ(v, 5.0f);
}

// C inside a wider matrix (ldc > n, lda and ldb padded too): the loops keep to the strides, and
// leave the padding alone.
TEST(ThinGemm, KeepsToTheLeadingDimensions) {
  if (!own_loops_match_blas()) GTEST_SKIP() << "the thin path is off for " << detect_blas().name;
  std::mt19937 rng(17);
  std::normal_distribution<float> normal;
  const Shape shapes[] = {{Trans::Yes, Trans::No, 40, 3, 50},
                          {Trans::Yes, Trans::No, 2, 21, 30},
                          {Trans::No, Trans::Yes, 19, 21, 4},
                          {Trans::No, Trans::No, 19, 21, 3}};
  for (const auto& s : shapes) {
    const int pad = 5;
    const int lda = (s.ta == Trans::Yes ? s.m : s.k) + pad, ldb = (s.tb == Trans::Yes ? s.k : s.n) + pad,
              ldc = s.n + pad;
    std::vector<float> a(static_cast<std::size_t>((s.ta == Trans::Yes ? s.k : s.m) * lda));
    std::vector<float> b(static_cast<std::size_t>((s.tb == Trans::Yes ? s.n : s.k) * ldb));
    std::vector<float> c(static_cast<std::size_t>(s.m * ldc));
    for (auto& v : a) v = normal(rng);
    for (auto& v : b) v = normal(rng);
    for (auto& v : c) v = normal(rng);
    auto by_blas = c, by_thin = c;
    cblas_sgemm(CblasRowMajor, s.ta == Trans::Yes ? CblasTrans : CblasNoTrans,
                s.tb == Trans::Yes ? CblasTrans : CblasNoTrans, s.m, s.n, s.k, 1.0f, a.data(), lda, b.data(), ldb,
                1.0f, by_blas.data(), ldc);
    ASSERT_TRUE(thin_sgemm(s.ta, s.tb, s.m, s.n, s.k, 1.0f, a.data(), lda, b.data(), ldb, 1.0f, by_thin.data(), ldc))
        << describe(s, 1.0f);
    EXPECT_EQ(std::memcmp(by_blas.data(), by_thin.data(), c.size() * sizeof(float)), 0) << describe(s, 1.0f);
  }
}

// rlzoo::sgemm, whichever way it takes (thin loops, C zeroed before the BLAS call for beta 0,
// the BLAS call itself), gives what the BLAS call gives.
TEST(ThinGemm, SgemmMatchesTheBlasCall) {
  std::mt19937 rng(11);
  std::normal_distribution<float> normal;
  const int shapes[][3] = {{32, 16, 4}, {256, 64, 64}, {64, 64, 256}, {8, 64, 64}, {100, 300, 400}};
  for (const auto& [m, n, k] : shapes)
    for (float beta : {0.0f, 1.0f}) {
      std::vector<float> a(m * k), b(n * k), c1(m * n), c2;
      for (auto& v : a) v = normal(rng);
      for (auto& v : b) v = normal(rng);
      for (auto& v : c1) v = normal(rng);
      c2 = c1;
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, m, n, k, 1.0f, a.data(), k, b.data(), k, beta, c1.data(),
                  n);
      sgemm(Trans::No, Trans::Yes, m, n, k, 1.0f, a.data(), k, b.data(), k, beta, c2.data(), n);
      EXPECT_EQ(std::memcmp(c1.data(), c2.data(), c1.size() * sizeof(float)), 0)
          << describe({Trans::No, Trans::Yes, m, n, k}, beta);
    }
}

// A layer's product onto rows that already hold its bias, where bias_first_matches_blas says
// so, has the bits of the product with beta 0 and the bias added after.
TEST(ThinGemm, BiasFirstMatchesBiasAfter) {
  if (!own_loops_match_blas())
    GTEST_SKIP() << "bias first is taken only under OpenBLAS's Haswell and Zen kernels; this is "
                 << detect_blas().name;
  std::mt19937 rng(13);
  std::normal_distribution<float> normal;
  const int shapes[][3] = {{256, 64, 4}, {256, 64, 64}, {256, 2, 64}, {8, 64, 64}, {64, 64, 17}, {256, 256, 256}};
  for (const auto& [m, n, k] : shapes) {
    ASSERT_TRUE(bias_first_matches_blas(k));
    std::vector<float> x(m * k), w(n * k), bias(n), after(m * n), first(m * n);
    for (auto& v : x) v = normal(rng);
    for (auto& v : w) v = normal(rng);
    for (auto& v : bias) v = normal(rng);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, m, n, k, 1.0f, x.data(), k, w.data(), k, 0.0f, after.data(),
                n);
    for (int r = 0; r < m; ++r)
      for (int j = 0; j < n; ++j) after[r * n + j] += bias[j];
    for (int r = 0; r < m; ++r) std::copy(bias.begin(), bias.end(), first.begin() + r * n);
    sgemm(Trans::No, Trans::Yes, m, n, k, 1.0f, x.data(), k, w.data(), k, 1.0f, first.data(), n);
    EXPECT_EQ(std::memcmp(after.data(), first.data(), after.size() * sizeof(float)), 0)
        << describe({Trans::No, Trans::Yes, m, n, k}, 1.0f);
  }
  EXPECT_FALSE(bias_first_matches_blas(257));  // past one k block the sums meet C more than once
}

}  // namespace
}  // namespace rlzoo
