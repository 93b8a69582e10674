// TD3's and DDPG's arithmetic against hand computations (td3_loss.h), the delayed actor update,
// the settings each one has, and the shared acting policy's noise (rl/continuous_acting.h).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <torch/torch.h>

#include "algorithms/td3/td3.h"
#include "algorithms/td3/td3_loss.h"
#include "rl/agent.h"
#include "rl/nets/target_network.h"
#include "rl/training_monitor.h"
#include "tests/support/builtin_registries.h"

namespace rlzoo {
namespace {

using ::testing::HasSubstr;

TEST(Td3Loss, SmoothingTargetAndCriticLossByHand) {
  const auto next = torch::tensor({{0.9, -0.2}, {0.0, 0.5}});
  const auto noise = torch::tensor({{1.0, -4.0}, {-0.5, 3.0}});
  // noise * 0.2 = (0.2, -0.8 -> -0.5), (-0.1, 0.6 -> 0.5); sums clamped to [-1, 1].
  const auto smoothed = td3_smoothed_actions(next, noise, 0.2, 0.5);
  EXPECT_TRUE(torch::allclose(smoothed, torch::tensor({{1.0, -0.7}, {-0.1, 1.0}})));
  const auto next_q = torch::tensor({{3.0, -1.0}, {2.0, 0.5}});
  const auto target = td3_critic_target(next_q, torch::tensor({1.0, 0.0}), torch::tensor({0.5, 0.5}),
                                        torch::tensor({0.0, 1.0}));
  EXPECT_TRUE(torch::allclose(target, torch::tensor({1.0 + 0.5 * 2.0, 0.0})));
  // mean(1, 4) + mean(0, 1) = 2.5 + 0.5
  EXPECT_NEAR(td3_critic_loss(torch::tensor({{1.0, 2.0}, {2.0, 1.0}}), torch::tensor({0.0, 0.0}) + torch::tensor({0.0, 0.0}))
                  .item<double>(),
              0.5 * (1 + 4) + 0.5 * (4 + 1), 1e-6);
}

// polyak_update (rl/nets/target_network.h), every off-policy learner's target step:
// dst = (1 - tau) dst + tau src on the parameters, a copy at tau = 1, buffers copied.
TEST(TargetNetwork, PolyakUpdateByHand) {
  torch::nn::Linear src(2, 1), dst(2, 1);
  {
    torch::NoGradGuard no_grad;
    src->weight.copy_(torch::tensor({{1.0f, 2.0f}}));
    src->bias.fill_(4.0f);
    dst->weight.copy_(torch::tensor({{-1.0f, 0.0f}}));
    dst->bias.fill_(0.0f);
  }
  polyak_update(*src, *dst, 0.25);
  EXPECT_TRUE(torch::allclose(dst->weight, torch::tensor({{-0.5f, 0.5f}})));
  EXPECT_NEAR(dst->bias.item<float>(), 1.0f, 1e-6);
  copy_module(*src, *dst);
  EXPECT_TRUE(torch::equal(dst->weight, src->weight));
  EXPECT_TRUE(torch::equal(dst->bias, src->bias));
}

TEST(Td3Agent, DdpgHasNoneOfTd3sOwnKeysAndEachRefusesBadSettingsAtTheirKey) {
  test::register_builtins();
  auto error_of = [](const std::string& algo, std::vector<std::string> overrides) {
    try {
      make_agent(algo, "Pendulum-v1", overrides);
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  for (const char* key : {"policy_delay=2", "target_policy_noise=0.1", "target_noise_clip=0.3", "n_critics=2"})
    EXPECT_THAT(error_of("ddpg", {std::string("hyperparams.") + key}), HasSubstr(std::string(key).substr(0, 8))) << key;
  EXPECT_EQ(error_of("td3", {"hyperparams.policy_delay=3", "hyperparams.n_critics=3"}), "no error");
  EXPECT_THAT(error_of("td3", {"hyperparams.action_noise=pink"}), HasSubstr("action_noise"));
  EXPECT_THAT(error_of("td3", {"hyperparams.policy.log_std_init=-1"}), HasSubstr("log_std_init"));
  EXPECT_THAT(error_of("ddpg", {"hyperparams.policy.ortho_init=true"}), HasSubstr("ortho_init"));
}

// The actor and the targets move once every policy_delay gradient steps; the critics every
// step. DDPG's actor every step.
TEST(Td3Agent, TheActorAndTargetsUpdateOncePerPolicyDelay) {
  test::register_builtins();
  for (const auto& [algo, delay] : {std::pair<std::string, int>{"td3", 2}, {"ddpg", 1}}) {
    auto agent = make_agent(algo, "Pendulum-v1",
                            {"seed=1", "hyperparams.learning_starts=20", "hyperparams.batch_size=8",
                             "hyperparams.policy.hidden=[8]", "hyperparams.train_freq=1", "hyperparams.gradient_steps=1"});
    agent->set_progress_bar(false);
    auto& td3 = dynamic_cast<Td3Agent&>(*agent);
    auto snapshot = [](torch::nn::Module& m) {
      std::vector<torch::Tensor> out;
      for (const auto& p : m.parameters()) out.push_back(p.detach().clone());
      return out;
    };
    auto same = [](const std::vector<torch::Tensor>& a, const std::vector<torch::Tensor>& b) {
      for (std::size_t i = 0; i < a.size(); ++i)
        if (!torch::equal(a[i], b[i])) return false;
      return true;
    };
    agent->learn(21);  // the first gradient step: n_updates 1
    std::vector<bool> actor_moved;
    for (int k = 0; k < 4; ++k) {
      const auto actor = snapshot(*td3.actor()), critic = snapshot(*td3.critic());
      agent->learn(1);
      actor_moved.push_back(!same(actor, snapshot(*td3.actor())));
      EXPECT_FALSE(same(critic, snapshot(*td3.critic()))) << algo << " step " << k;
    }
    // n_updates 2, 3, 4, 5: TD3's actor moves at 2 and 4; DDPG's at every one.
    const std::vector<bool> expected = delay == 2 ? std::vector<bool>{true, false, true, false}
                                                  : std::vector<bool>{true, true, true, true};
    EXPECT_EQ(actor_moved, expected) << algo;
  }
}

}  // namespace
}  // namespace rlzoo
