// PPO's acting rows without tensors (PlainGaussianRows) against the rows from a forward pass
// (sampled_rows): the same bits and the same random draws, across a change of log_std, and a
// refusal that draws nothing where the policy needs tensors.
#include <gtest/gtest.h>

#include <torch/torch.h>

#include <vector>

#include "algorithms/ppo/ppo_acting_rows.h"
#include "rl/nets/networks.h"

namespace rlzoo {
namespace {

constexpr std::int64_t kActingRows = 4, kActionFloats = 2;

PolicyConfig relu_policy() {
  PolicyConfig cfg;
  cfg.activation = "relu";
  cfg.log_std_init = 0.7;
  return cfg;
}

// The rows both ways from the same RNG state, and one draw after each (the RNG must end alike).
void expect_same_rows(ActorCritic& ac, PlainGaussianRows& plain, const torch::Tensor& obs, const std::string& what) {
  torch::NoGradGuard no_grad;
  torch::manual_seed(11);
  auto [dist, values] = ac->forward({obs});
  const auto expected = sampled_rows(dist, values, kActionFloats);
  const auto after_expected = torch::randn({1});
  torch::manual_seed(11);
  auto got = torch::empty({kActingRows, kActionFloats + 2});
  ASSERT_TRUE(plain(*ac, obs.data_ptr<float>(), kActingRows, kActionFloats, got.data_ptr<float>())) << what;
  EXPECT_TRUE(torch::equal(got, expected)) << what << "\nplain:\n" << got << "\nforward:\n" << expected;
  EXPECT_TRUE(torch::equal(torch::randn({1}), after_expected)) << what << ": another number of draws";
}

TEST(PpoActingRows, PlainGaussianRowsAreTheForwardPassesBits) {
  torch::manual_seed(3);
  ActorCritic ac(Space::box(-1, 1, {3}), Space::box(-2, 2, {kActionFloats}), relu_policy());
  PlainGaussianRows plain;
  const auto obs = torch::randn({kActingRows, 3});
  expect_same_rows(ac, plain, obs, "first call");
  expect_same_rows(ac, plain, obs * 3, "second call (kept exponentials)");
  {
    torch::NoGradGuard no_grad;
    ac->log_std().add_(torch::tensor({0.25f, -0.5f}));  // as an optimiser step changes it in place
  }
  expect_same_rows(ac, plain, obs, "after log_std changed");
  ac->log_std().detach().fill_(std::numeric_limits<float>::quiet_NaN());
  torch::manual_seed(11);
  auto got = torch::empty({kActingRows, kActionFloats + 2});
  ASSERT_TRUE(plain(*ac, obs.data_ptr<float>(), kActingRows, kActionFloats, got.data_ptr<float>()));
  EXPECT_TRUE(got.select(1, 0).isnan().all().item<bool>()) << "a NaN log_std must reach the actions, not a kept std";
}

TEST(PpoActingRows, PoliciesThatNeedTensorsAreRefusedWithoutADraw) {
  torch::manual_seed(3);
  const auto obs = torch::randn({kActingRows, 3});
  PolicyConfig recurrent = relu_policy();
  recurrent.recurrent.cell = "gru";
  PolicyConfig elu = relu_policy();
  elu.activation = "elu";  // no fused chain
  std::vector<std::pair<std::string, ActorCritic>> refused{
      {"discrete actions", ActorCritic(Space::box(-1, 1, {3}), Space::discrete(3), relu_policy())},
      {"float64 observations",
       ActorCritic(Space::box(-1, 1, {3}, DType::Float64), Space::box(-2, 2, {kActionFloats}), relu_policy())},
      {"a recurrent policy", ActorCritic(Space::box(-1, 1, {3}), Space::box(-2, 2, {kActionFloats}), recurrent)},
      {"an activation the fused path lacks", ActorCritic(Space::box(-1, 1, {3}), Space::box(-2, 2, {kActionFloats}), elu)},
  };
  ActorCritic fused_off(Space::box(-1, 1, {3}), Space::box(-2, 2, {kActionFloats}), relu_policy());
  fused_off->use_fused_path(false);
  refused.emplace_back("the fused path switched off", fused_off);
  for (auto& [what, ac] : refused) {
    PlainGaussianRows plain;
    std::vector<float> out(kActingRows * (kActionFloats + 2), -7.0f);
    torch::manual_seed(5);
    EXPECT_FALSE(plain(*ac, obs.data_ptr<float>(), kActingRows, kActionFloats, out.data())) << what;
    const auto next = torch::randn({1});
    torch::manual_seed(5);
    EXPECT_TRUE(torch::equal(next, torch::randn({1}))) << what << ": drew a random number";
    EXPECT_EQ(out, std::vector<float>(kActingRows * (kActionFloats + 2), -7.0f)) << what << ": wrote rows";
  }
}

}  // namespace
}  // namespace rlzoo
