// Networks built from spaces, distributions, the rollout buffer's GAE.
#include <cmath>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "rl/buffers/rollout_buffer.h"
#include "rl/nets/networks.h"
#include "rl/nets/observation.h"
#include "rl/normalizers.h"

namespace rlzoo {
namespace {

using ::testing::HasSubstr;

TEST(Networks, ActorCriticForDiscreteAndBoxActions) {
  torch::manual_seed(0);
  PolicyConfig cfg;
  ActorCritic discrete(Space::box(-1, 1, {4}), Space::discrete(3), cfg);
  auto [d, v] = discrete->forward({torch::randn({5, 4})});
  EXPECT_EQ(d.sample().sizes(), (std::vector<std::int64_t>{5}));
  EXPECT_EQ(v.sizes(), (std::vector<std::int64_t>{5}));
  ASSERT_NE(d.categorical(), nullptr);

  ActorCritic gaussian(Space::box(-1, 1, {3}), Space::box(-2, 2, {2}), cfg);
  auto [g, gv] = gaussian->forward({torch::randn({5, 3})});
  ASSERT_NE(g.gaussian(), nullptr);
  EXPECT_EQ(g.sample().sizes(), (std::vector<std::int64_t>{5, 2}));
  EXPECT_TRUE(torch::allclose(gaussian->log_std(), torch::zeros({2})));
}

TEST(Networks, UnsupportedSpacesAreClearErrors) {
  PolicyConfig cfg;
  try {
    ActorCritic bad(Space::box(-1, 1, {4}), Space::multi_binary({3}), cfg);
    FAIL();
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("unsupported action space MultiBinary((3,))"));
  }
  try {
    QNetwork q(Space::box(-1, 1, {4}), Space::box(-1, 1, {1}), cfg);
    FAIL();
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("needs a Discrete action space"));
  }
  cfg.activation = "swish";
  EXPECT_THROW(ActorCritic(Space::box(-1, 1, {4}), Space::discrete(2), cfg), UserError);
}

TEST(Networks, DictImageAndDiscreteObservationsAreEncodedPerField) {
  const Space obs = Space::dict({{"image", Space::box(0, 255, {36, 36, 3}, DType::UInt8)},
                                 {"position", Space::box(-1, 1, {2})},
                                 {"room", Space::discrete(5)}});
  PolicyConfig cfg;
  cfg.cnn_features = 16;
  ObservationEncoder enc(obs, cfg);
  EXPECT_EQ(enc->out_features(), 16 + 2 + 5);
  // Observations in the space's byte layout, decoded with observation_tensors.
  Rng rng(1);
  std::vector<std::byte> rows(obs.byte_size() * 3);
  for (int i = 0; i < 3; ++i) obs.sample(rng, Bytes(rows.data() + i * obs.byte_size(), obs.byte_size()));
  const auto fields = observation_tensors(obs, rows.data(), 3);
  ASSERT_EQ(fields.size(), 3u);
  EXPECT_EQ(fields[0].sizes(), (std::vector<std::int64_t>{3, 36, 36, 3}));
  EXPECT_EQ(fields[2].scalar_type(), torch::kInt64);
  const auto features = enc->forward(fields);
  EXPECT_EQ(features.sizes(), (std::vector<std::int64_t>{3, 23}));
  // The one-hot part equals the room index.
  EXPECT_EQ(features.slice(1, 18, 23).argmax(1).equal(fields[2]), true);
}

TEST(Networks, DuelingQHeadCentresAdvantages) {
  PolicyConfig cfg;
  cfg.dueling = true;
  QNetwork q(Space::box(-1, 1, {4}), Space::discrete(3), cfg);
  EXPECT_EQ(q->forward({torch::randn({7, 4})}).sizes(), (std::vector<std::int64_t>{7, 3}));
}

TEST(Distributions, MaskedCategoricalNeverSamplesIllegalActions) {
  torch::manual_seed(3);
  const auto logits = torch::zeros({1000, 4});
  auto mask = torch::ones({1000, 4}, torch::kBool);
  mask.select(1, 2).fill_(false);
  Categorical c(logits, mask);
  EXPECT_FALSE(c.sample().eq(2).any().item<bool>());
  EXPECT_NEAR(c.entropy()[0].item<double>(), std::log(3.0), 1e-5);
  EXPECT_NEAR(c.log_prob(torch::zeros({1000}, torch::kInt64))[0].item<double>(), -std::log(3.0), 1e-5);
}

TEST(Distributions, DiagGaussianLogProbMatchesFormula) {
  const auto mean = torch::tensor({{0.5f, -1.0f}});
  const auto log_std = torch::tensor({0.1f, -0.3f});
  DiagGaussian g(mean, log_std);
  const auto a = torch::tensor({{0.2f, 0.0f}});
  double expected = 0;
  const double m[2] = {0.5, -1.0}, ls[2] = {0.1, -0.3}, x[2] = {0.2, 0.0};
  for (int i = 0; i < 2; ++i) {
    const double z = (x[i] - m[i]) / std::exp(ls[i]);
    expected += -0.5 * z * z - ls[i] - 0.5 * std::log(2 * M_PI);
  }
  EXPECT_NEAR(g.log_prob(a).item<double>(), expected, 1e-5);
  EXPECT_NEAR(g.entropy().item<double>(), (0.1 - 0.3) + 2 * (0.5 + 0.5 * std::log(2 * M_PI)), 1e-5);
}

TEST(RolloutBuffer, GaeMatchesHandComputedValuesAndStopsAtEpisodeEnds) {
  RolloutBuffer buf(3, 1);
  const double gamma = 0.9, lambda = 0.8;
  const float r[3] = {1, 2, 3}, v[3] = {0.5f, 1.0f, 1.5f}, done[3] = {0, 1, 0};
  for (int t = 0; t < 3; ++t)
    buf.add({torch::zeros({1, 2})}, torch::zeros({1}, torch::kInt64), torch::tensor({r[t]}), torch::tensor({done[t]}),
            torch::tensor({v[t]}), torch::zeros({1}));
  buf.compute_returns_and_advantages(torch::tensor({2.0f}), gamma, lambda);
  // t=2: delta = 3 + 0.9*2 - 1.5 = 3.3
  // t=1: episode ends here: delta = 2 - 1 = 1 (no bootstrap, no carry)
  // t=0: delta = 1 + 0.9*1.0 - 0.5 = 1.4; adv = 1.4 + 0.9*0.8*1 = 2.12
  const auto adv = buf.advantages();
  EXPECT_NEAR(adv[2][0].item<double>(), 3.3, 1e-5);
  EXPECT_NEAR(adv[1][0].item<double>(), 1.0, 1e-5);
  EXPECT_NEAR(adv[0][0].item<double>(), 2.12, 1e-5);
  EXPECT_NEAR(buf.returns()[0][0].item<double>(), 2.62, 1e-5);
  const auto batches = buf.minibatches(2);
  ASSERT_EQ(batches.size(), 2u);
  EXPECT_EQ(batches[0].advantages.size(0) + batches[1].advantages.size(0), 3);
}

// minibatches() copies rows itself: each field of each minibatch must be what reshape and
// index_select give for the same permutation (torch's default generator, drawn once per call).
TEST(RolloutBuffer, MinibatchesHoldTheRowsOfThePermutation) {
  constexpr std::int64_t steps = 5, envs = 3, total = steps * envs;
  RolloutBuffer buf(steps, envs);
  const auto obs = torch::randn({steps, envs, 2, 3});
  const auto actions = torch::randint(0, 4, {steps, envs}, torch::kInt64);
  const auto values = torch::randn({steps, envs}), log_probs = torch::randn({steps, envs});
  const auto masks = torch::rand({steps, envs, 4}) > 0.5;
  for (std::int64_t t = 0; t < steps; ++t)
    buf.add({obs[t]}, actions[t], torch::randn({envs}), torch::zeros({envs}), values[t], log_probs[t], masks[t]);
  buf.compute_returns_and_advantages(torch::randn({envs}), 0.9, 0.8);
  torch::manual_seed(21);
  const auto batches = buf.minibatches(4);
  torch::manual_seed(21);
  const auto perm = torch::randperm(total, torch::kInt64);
  ASSERT_EQ(batches.size(), 4u);
  auto rows_of = [&](const torch::Tensor& t, std::int64_t start, std::int64_t count) {
    std::vector<std::int64_t> sizes{total};
    for (std::int64_t k = 2; k < t.dim(); ++k) sizes.push_back(t.size(k));
    return t.reshape(sizes).index_select(0, perm.slice(0, start, start + count));
  };
  for (std::size_t i = 0; i < batches.size(); ++i) {
    const std::int64_t start = static_cast<std::int64_t>(i) * 4, count = std::min<std::int64_t>(4, total - start);
    const auto& b = batches[i];
    EXPECT_TRUE(torch::equal(b.obs[0], rows_of(obs, start, count))) << i;
    EXPECT_TRUE(torch::equal(b.actions, rows_of(actions, start, count))) << i;
    EXPECT_TRUE(torch::equal(b.old_values, rows_of(values, start, count))) << i;
    EXPECT_TRUE(torch::equal(b.old_log_probs, rows_of(log_probs, start, count))) << i;
    EXPECT_TRUE(torch::equal(b.advantages, rows_of(buf.advantages(), start, count))) << i;
    EXPECT_TRUE(torch::equal(b.returns, rows_of(buf.returns(), start, count))) << i;
    EXPECT_TRUE(torch::equal(b.action_masks, rows_of(masks, start, count))) << i;
  }
}

// add() stores rows of other dtypes and strided columns without select and copy_: the stored
// values must be exactly what copy_ gives (float64 rounded to nearest, overflow to inf, bool
// as 0/1), and a column of the policy's [N, 2] output must be read with its stride.
TEST(RolloutBuffer, RowsOfOtherDtypesAndStridedColumnsStoreAsCopyWould) {
  const auto as_float = [](const torch::Tensor& t) { return torch::empty({t.numel()}, torch::kFloat32).copy_(t); };
  const auto rewards = torch::tensor({0.1, 1e-46, 3.5e38, -2.0 / 3.0}, torch::kFloat64);
  const auto out = torch::tensor({{1.5f, -0.25f}, {2.5f, -0.5f}, {3.5f, -0.75f}, {4.5f, -1.0f}});
  const auto out64 = torch::tensor({{0.3, 7.0}, {0.6, 8.0}, {0.9, 9.0}, {1.2, 10.0}}, torch::kFloat64);
  const auto values = out.select(1, 1), log_probs = out64.select(1, 0);  // strided columns
  ASSERT_FALSE(values.is_contiguous());
  ASSERT_FALSE(log_probs.is_contiguous());
  const auto bool_dones = torch::tensor({false, true, false, true}), float_dones = torch::tensor({0.f, 1.f, 0.f, 1.f});
  RolloutBuffer a(2, 4), b(2, 4);
  const auto wide_obs = torch::arange(24, torch::kFloat32).reshape({4, 6});
  const auto obs = wide_obs.slice(1, 0, 3);  // [4, 3] with strides [6, 1]
  ASSERT_FALSE(obs.is_contiguous());
  for (int t = 0; t < 2; ++t) {
    a.add({obs}, torch::zeros({4}, torch::kInt64), rewards, bool_dones, values, log_probs);
    b.add({obs.contiguous()}, torch::zeros({4}, torch::kInt64), as_float(rewards), float_dones, values.contiguous(),
          as_float(log_probs));
  }
  // A row copy_ cannot take is still refused.
  RolloutBuffer c(1, 4);
  EXPECT_THROW(c.add({obs}, torch::zeros({4}, torch::kInt64), rewards.reshape({4, 1}), float_dones, values, log_probs),
               std::exception);
  for (int t = 0; t < 2; ++t) {
    EXPECT_TRUE(torch::equal(a.rewards()[t], as_float(rewards))) << t;
    EXPECT_TRUE(torch::equal(a.values()[t], values)) << t;
    EXPECT_TRUE(torch::equal(a.log_probs()[t], as_float(log_probs))) << t;
    EXPECT_TRUE(torch::equal(b.log_probs()[t], a.log_probs()[t])) << t;
  }
  EXPECT_TRUE(std::isinf(a.rewards()[0][2].item<float>()));
  torch::manual_seed(5);
  const auto batch_a = a.minibatches(8);
  torch::manual_seed(5);
  const auto batch_b = b.minibatches(8);
  ASSERT_EQ(batch_a.size(), 1u);
  EXPECT_TRUE(torch::equal(batch_a[0].obs[0], batch_b[0].obs[0]));
  a.compute_returns_and_advantages(torch::zeros({4}), 0.9, 0.8);
  b.compute_returns_and_advantages(torch::zeros({4}), 0.9, 0.8);
  EXPECT_TRUE(torch::equal(a.advantages(), b.advantages()));
}

// add_rows() reads a step from plain memory laid out as a trajectory's extras rows ([actions,
// log-prob, value, normalised obs] per env): the buffer must hold what add() stores for the
// same step as tensors, for Box actions and for Discrete ones (whole-number floats to int64),
// either way first; rows that do not fit the storage are refused.
TEST(RolloutBuffer, AddRowsStoresWhatAddStores) {
  constexpr std::int64_t n = 3, d = 2, o = 4, k = d + 2 + o;
  const auto extras = torch::randn({2, n, k});
  const auto rewards = torch::tensor({0.5f, -1.0f, 2.0f}), dones = torch::tensor({0.f, 1.f, 0.f});
  for (const bool discrete : {false, true}) {
    const auto rows = discrete ? extras.clone() : extras;
    if (discrete) rows.select(2, 0).copy_(torch::tensor({{0.f, 2.f, 1.f}, {1.f, 1.f, 0.f}}));
    const std::vector<std::int64_t> action_shape = discrete ? std::vector<std::int64_t>{} : std::vector<std::int64_t>{d};
    const std::int64_t a = discrete ? 1 : d;  // action floats in a row
    auto tensors_of = [&](std::int64_t t) {
      const auto e = rows[t];
      return std::vector<torch::Tensor>{e.slice(1, k - o), discrete ? e.select(1, 0).to(torch::kInt64) : e.slice(1, 0, d),
                                        e.select(1, a + 1), e.select(1, a)};
    };
    auto add_rows_of = [&](RolloutBuffer& buf, std::int64_t t) {
      const float* e = rows[t].data_ptr<float>();
      buf.add_rows({e + k - o, k}, {o}, {e, k}, action_shape, discrete, rewards.data_ptr<float>(),
                   dones.data_ptr<float>(), {e + a + 1, k}, {e + a, k});
    };
    RolloutBuffer by_add(2, n), by_rows(2, n), mixed(2, n);
    for (std::int64_t t = 0; t < 2; ++t) {
      const auto x = tensors_of(t);
      by_add.add({x[0]}, x[1], rewards, dones, x[2], x[3]);
      add_rows_of(by_rows, t);
    }
    const auto x = tensors_of(1);
    add_rows_of(mixed, 0);
    mixed.add({x[0]}, x[1], rewards, dones, x[2], x[3]);
    for (RolloutBuffer* buf : {&by_add, &by_rows, &mixed}) buf->compute_returns_and_advantages(torch::ones({n}), 0.9, 0.8);
    for (RolloutBuffer* buf : {&by_rows, &mixed}) {
      EXPECT_TRUE(torch::equal(buf->values(), by_add.values())) << discrete;
      EXPECT_TRUE(torch::equal(buf->log_probs(), by_add.log_probs())) << discrete;
      EXPECT_TRUE(torch::equal(buf->advantages(), by_add.advantages())) << discrete;
      torch::manual_seed(3);
      const auto got = buf->minibatches(6);
      torch::manual_seed(3);
      const auto want = by_add.minibatches(6);
      EXPECT_TRUE(torch::equal(got[0].obs[0], want[0].obs[0])) << discrete;
      EXPECT_TRUE(torch::equal(got[0].actions, want[0].actions)) << discrete;
      EXPECT_EQ(got[0].actions.scalar_type(), want[0].actions.scalar_type()) << discrete;
    }
  }
  RolloutBuffer other(2, n);
  const float* e = extras[0].data_ptr<float>();
  other.add_rows({e + k - o, k}, {o}, {e, k}, {d}, false, rewards.data_ptr<float>(), dones.data_ptr<float>(),
                 {e + d + 1, k}, {e + d, k});
  EXPECT_THROW(other.add_rows({e + k - o, k}, {o - 1}, {e, k}, {d}, false, rewards.data_ptr<float>(),
                              dones.data_ptr<float>(), {e + d + 1, k}, {e + d, k}),
               std::exception);  // another observation shape
  EXPECT_THROW(other.add_rows({e + k - o, k}, {o}, {e, k}, {}, true, rewards.data_ptr<float>(), dones.data_ptr<float>(),
                              {e + d + 1, k}, {e + d, k}),
               std::exception);  // Discrete actions into Box storage
}

// update_rows() folds float32 rows into the statistics as update() folds the same tensor.
TEST(ObservationNormalizer, UpdateRowsFoldsAsUpdate) {
  const auto batches = torch::randn({3, 5, 4}) * 7 + 2;
  ObservationNormalizer by_tensor(4), by_rows(4);
  for (std::int64_t i = 0; i < 3; ++i) {
    by_tensor.update(batches[i]);
    by_rows.update_rows(batches[i].data_ptr<float>(), 5);
  }
  EXPECT_EQ(by_rows.statistics().mean(), by_tensor.statistics().mean());
  EXPECT_EQ(by_rows.statistics().var(), by_tensor.statistics().var());
  EXPECT_EQ(by_rows.statistics().count(), by_tensor.statistics().count());
}

}  // namespace
}  // namespace rlzoo
