// TD3's and DDPG's arithmetic against hand computations (td3_loss.h), the delayed actor update,
// the settings each one has, and the shared acting policy's noise (rl/continuous_acting.h).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <torch/torch.h>

#include "algorithms/td3/td3.h"
#include "algorithms/td3/td3_loss.h"
#include "rl/agent.h"
#include "rl/box_action_scaling.h"
#include "core/common/error.h"
#include "rl/callbacks.h"
#include "core/checkpoint/manager.h"
#include "rl/nets/target_network.h"
#include "rl/training_monitor.h"
#include "tests/support/builtin_registries.h"
#include "tests/support/test_paths.h"

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

// BoxActionScaling (rl/box_action_scaling.h): env actions to [-1, 1] and back per dimension;
// float32 batches take a plain loop, which must give the float64 operations' bits.
TEST(BoxActionScaling, ToUnitAndBackPerDimensionWithTheSameBitsOnEitherPath) {
  const BoxActionScaling scaling(Space::box({-1.0, 0.0}, {3.0, 0.5}, {2}), "test");
  const auto env = torch::tensor({{-1.0f, 0.0f}, {3.0f, 0.5f}, {1.0f, 0.125f}});
  EXPECT_TRUE(torch::equal(scaling.to_unit(env), torch::tensor({{-1.0f, -1.0f}, {1.0f, 1.0f}, {0.0f, -0.5f}})));
  const auto many = torch::rand({1000, 2}) * torch::tensor({4.0f, 0.5f}) + torch::tensor({-1.0f, 0.0f});
  // float64 input takes the operations; float32 the loop: the same float32 bits.
  EXPECT_TRUE(torch::equal(scaling.to_unit(many), scaling.to_unit(many.to(torch::kFloat64))));
  EXPECT_TRUE(torch::allclose(scaling.to_env(scaling.to_unit(many)), many, 1e-6, 1e-6));
  EXPECT_THROW(BoxActionScaling(Space::box(-INFINITY, 1.0, {1}), "test"), UserError);
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

// train_freq as the zoo writes it: [n, "episode"] trains after every n finished episodes,
// gradient_steps -1 as many steps as the phase collected; the budget's end closes the last
// phase. Pendulum's episodes are 200 steps.
TEST(Td3Agent, TrainFreqInEpisodesTrainsAfterEachEpisode) {
  test::register_builtins();
  auto agent_with = [](const std::string& freq, const std::string& gradient_steps) {
    auto agent = make_agent("td3", "Pendulum-v1",
                            {"seed=1", "hyperparams.learning_starts=100", "hyperparams.batch_size=8",
                             "hyperparams.policy.hidden=[8]", "hyperparams.train_freq=" + freq,
                             "hyperparams.gradient_steps=" + gradient_steps});
    agent->set_progress_bar(false);
    return agent;
  };
  auto updates_of = [](Agent& agent) { return dynamic_cast<Td3Agent&>(agent).n_updates(); };
  {
    auto agent = agent_with("[1, episode]", "-1");
    agent->learn(199);  // mid-episode at the budget's end: its 199 steps are past learning_starts
    EXPECT_EQ(updates_of(*agent), 199);
    agent->learn(301);  // 500: the episode ending at 200 (1 step), at 400 (200), then 100 at the end
    EXPECT_EQ(updates_of(*agent), 199 + 1 + 200 + 100);
  }
  {
    auto agent = agent_with("[2, episode]", "3");
    agent->learn(1000);  // phases end at 400, 800 and the budget's end
    EXPECT_EQ(updates_of(*agent), 3 * 3);
  }
  {
    auto agent = agent_with("[5, step]", "2");
    agent->learn(200);  // phases end every 5 steps; 100 is not past learning_starts, 105 is
    EXPECT_EQ(updates_of(*agent), 2 * (200 - 100) / 5);
  }
}

TEST(Td3Agent, TrainFreqRefusesWhatItCannotCount) {
  test::register_builtins();
  auto error_of = [](std::vector<std::string> overrides) {
    try {
      make_agent("sac", "Pendulum-v1", overrides);
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error_of({"hyperparams.train_freq=[1, episode]"}), "no error");
  EXPECT_THAT(error_of({"hyperparams.train_freq=[1, epoch]"}), HasSubstr("'epoch' is not a train_freq unit"));
  EXPECT_THAT(error_of({"hyperparams.train_freq=[0, step]"}), HasSubstr("must be >= 1"));
  EXPECT_THAT(error_of({"hyperparams.train_freq=0"}), HasSubstr("hyperparams.train_freq"));
  EXPECT_THAT(error_of({"hyperparams.train_freq=[1]"}), HasSubstr("[n, \"step\" or \"episode\"]"));
  EXPECT_THAT(error_of({"hyperparams.train_freq=[1, episode]", "hyperparams.n_envs=2"}),
              HasSubstr("needs one env"));
  EXPECT_THAT(error_of({"hyperparams.train_freq=[1, episode]", "runtime.actors=2"}), HasSubstr("needs one env"));
}

// The phase under way is part of a checkpoint: a checkpoint taken mid-phase resumes to the
// same updates and actor as the run that never stopped.
TEST(Td3Agent, TrainFreqInEpisodesResumesMidPhase) {
  test::register_builtins();
  const std::string dir = test::make_temp_dir("rlzoo-td3-episode-phase");
  auto straight = make_agent("td3", "Pendulum-v1",
                             {"seed=3", "hyperparams.learning_starts=50", "hyperparams.batch_size=8",
                              "hyperparams.policy.hidden=[8]", "hyperparams.train_freq=[2, episode]",
                              "hyperparams.gradient_steps=-1"});
  straight->set_progress_bar(false);
  CallbackList callbacks;
  callbacks.add(std::make_unique<CheckpointCallback>(dir, 250, 5));
  straight->learn(500, &callbacks);  // trains 400 steps at 400 and 100 at 500
  EXPECT_EQ(dynamic_cast<Td3Agent&>(*straight).n_updates(), 500);
  // One episode and 250 steps into the first phase.
  auto resumed = load_agent(dir + "/" + CheckpointManager::dir_name(250));
  resumed->set_progress_bar(false);
  resumed->learn(250);
  auto& a = dynamic_cast<Td3Agent&>(*straight);
  auto& b = dynamic_cast<Td3Agent&>(*resumed);
  EXPECT_EQ(b.n_updates(), a.n_updates());
  const auto pa = a.actor()->parameters(), pb = b.actor()->parameters();
  ASSERT_EQ(pa.size(), pb.size());
  for (std::size_t i = 0; i < pa.size(); ++i) EXPECT_TRUE(torch::equal(pa[i], pb[i])) << i;
}

}  // namespace
}  // namespace rlzoo
