// PPO through the high-level API: bad presets, save/load, act.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "rl/agent.h"
#include "algorithms/builtin.h"
#include "algorithms/ppo/ppo.h"
#include "algorithms/ppo/ppo_loss.h"
#include "core/checkpoint/manager.h"
#include "core/common/error.h"
#include "core/registry/env_registry.h"
#include "envs/builtin.h"
#include "tests/support/test_paths.h"

namespace rlzoo {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
namespace fs = std::filesystem;

class Ppo : public ::testing::Test {
 protected:
  void SetUp() override {
    register_builtin_envs();
    register_builtin_algorithms();
  }
};

using test::error_of;

TEST_F(Ppo, BadPresetsGiveOneClearErrorEach) {
  EXPECT_THAT(error_of([] { make_agent("ppp", "CartPole-v1"); }), HasSubstr("key 'algo': unknown algorithm 'ppp'"));
  EXPECT_THAT(error_of([] { make_agent("ppo", "CartPole-v2"); }), HasSubstr("did you mean: CartPole-v1"));
  EXPECT_THAT(error_of([] { make_agent("ppo", "CartPole-v1", {"hyperparams.learing_rate=0.1"}); }),
              HasSubstr("--set hyperparams.learing_rate=0.1: key 'hyperparams.learing_rate': unknown key (did you mean "
                        "'learning_rate'?)"));
  EXPECT_THAT(error_of([] { make_agent("ppo", "CartPole-v1", {"hyperparams.n_steps=many"}); }),
              HasSubstr("expected an integer, got 'many'"));
  EXPECT_THAT(error_of([] { make_agent("ppo", "CartPole-v1", {"hyperparams.gamma=1.5"}); }), HasSubstr("out of range"));
  EXPECT_THAT(error_of([] { make_agent("ppo", "CartPole-v1", {"hyperparams.policy.activation=swish"}); }),
              HasSubstr("'swish' is not one of"));
  EXPECT_THAT(error_of([] { make_agent("ppo", "Pendulum-v1", {"env_kwargs.gravity=3"}); }),
              HasSubstr("key 'env_kwargs.gravity': unknown key; valid keys: g"));
  // A preset file: errors name the file and line.
  const std::string dir = test::make_temp_dir("rlzoo-ppo-preset");
  const std::string path = dir + "/bad.yaml";
  std::ofstream(path) << "algo: ppo\nenv: CartPole-v1\nhyperparams:\n  n_envs: 0\n";
  EXPECT_THAT(error_of([&] { Agent::from_preset(path); }), HasSubstr("bad.yaml:4:11: key 'hyperparams.n_envs'"));
}

TEST_F(Ppo, SaveLoadActGivesIdenticalActions) {
  auto agent = make_agent("ppo", "Pendulum-v1", {"hyperparams.n_steps=64", "hyperparams.batch_size=32",
                                                 "hyperparams.normalize_obs=true", "hyperparams.n_epochs=2"});
  agent->set_progress_bar(false);
  agent->learn(256);
  EXPECT_EQ(agent->num_timesteps(), 256);
  const std::string dir = test::make_temp_dir("rlzoo-ppo-save") + "/agent";
  agent->save(dir);
  auto loaded = load_agent(dir);
  EXPECT_EQ(loaded->algorithm(), "ppo");
  EXPECT_EQ(loaded->num_timesteps(), 256);
  torch::manual_seed(5);
  const auto obs = torch::randn({16, 3});
  EXPECT_TRUE(agent->act(obs).equal(loaded->act(obs)));
  // Stochastic actions from the same generator state are identical too.
  torch::manual_seed(9);
  const auto a1 = agent->act(obs, ActOptions{.deterministic = false});
  torch::manual_seed(9);
  const auto a2 = loaded->act(obs, ActOptions{.deterministic = false});
  EXPECT_TRUE(a1.equal(a2));
  // Deterministic continuous actions are clipped to the bounds.
  EXPECT_LE(agent->act(obs * 100).abs().max().item<float>(), 2.0f);
}

TEST_F(Ppo, DiscreteActionsRespectMasksAndShapes) {
  auto agent = make_agent("ppo", "CartPole-v1");
  const auto obs = torch::zeros({4, 4});
  auto mask = torch::zeros({4, 2}, torch::kBool);
  mask.select(1, 1).fill_(true);
  ActOptions o;
  o.action_mask = mask;
  o.deterministic = false;
  EXPECT_TRUE(agent->act(obs, o).eq(1).all().item<bool>());
  EXPECT_EQ(agent->act(obs).scalar_type(), torch::kInt64);
}

TEST_F(Ppo, LoadingACorruptedAgentNamesTheFile) {
  auto agent = make_agent("ppo", "CartPole-v1");
  const std::string dir = test::make_temp_dir("rlzoo-ppo-corrupt") + "/agent";
  agent->save(dir);
  {
    std::fstream f(dir + "/policy.pt", std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(100);
    f.put('\x7f');
  }
  EXPECT_THAT(error_of([&] { load_agent(dir); }), HasSubstr("policy.pt"));
  EXPECT_THAT(error_of([&] { load_agent(dir + "-missing"); }), HasSubstr("no such agent or run directory"));
}

// A run whose every checkpoint is damaged says so, naming each, instead of "not an agent"; a
// saved state without a field this version needs is a named error, not an internal one; an
// override that changes the network's shape names the tensor and both shapes.
TEST_F(Ppo, UnloadableCheckpointsAreExplained) {
  auto agent = make_agent("ppo", "CartPole-v1", {"hyperparams.policy.hidden=[8]"});
  const std::string run = test::make_temp_dir("rlzoo-ppo-unloadable");
  CheckpointManager m(run + "/checkpoints", 3);
  m.save(100, agent->checkpoint());
  m.save(200, agent->checkpoint());
  EXPECT_THAT(error_of([&] { load_agent(run, {"hyperparams.policy.hidden=[16]"}); }),
              AllOf(HasSubstr("policy.pt"), HasSubstr("[16, 4]"), HasSubstr("[8, 4]")));
  for (std::int64_t step : {100, 200}) fs::resize_file(m.dir_for(step) / "policy.pt", 10);
  EXPECT_THAT(error_of([&] { load_agent(run); }),
              AllOf(HasSubstr("no checkpoint in"), HasSubstr("ckpt_000000000200"), HasSubstr("ckpt_000000000100"),
                    HasSubstr("truncated")));

  CheckpointWriter w = agent->checkpoint();
  CheckpointWriter without_counter(w.metadata());
  const std::string dir = run + "/agent";
  w.commit(dir);
  const CheckpointReader r = CheckpointReader::open(dir);
  for (const auto& name : r.names()) {
    if (name == "state.json") {
      nlohmann::json state = r.read_json(name);
      state.erase("n_updates");
      without_counter.add_json(name, state);
    } else {
      without_counter.add(name, r.read(name));
    }
  }
  without_counter.commit(dir);
  EXPECT_THAT(error_of([&] { load_agent(dir); }),
              AllOf(HasSubstr("cannot restore the ppo agent"), HasSubstr("n_updates")));
}

}  // namespace
}  // namespace rlzoo

namespace rlzoo {
namespace {

// Discrete(3, start=1) actions: PPO's categorical index would be sent one off; it refuses.
class ShiftedActionsEnv final : public Env {
 public:
  ShiftedActionsEnv() : Env({.id = "ShiftedActions-v0", .observation_space = Space::box(-1, 1, {1}),
                             .action_space = Space::discrete(3, 1)}) {}

 protected:
  void do_reset(std::optional<std::uint64_t>, Bytes obs) override { as_span<float>(obs)[0] = 0; }
  StepResult do_step(ConstBytes, Bytes obs) override {
    as_span<float>(obs)[0] = 0;
    return {};
  }
};

// E6 (docs/reliability.md): only a time-out that did not also terminate bootstraps; every end
// of an episode is a done.
TEST(PpoStepRewards, OnlyATimeOutWithoutTerminationBootstraps) {
  const std::vector<double> rewards{1, 1, 1, 1};
  const std::vector<std::uint8_t> terminated{0, 1, 0, 1}, truncated{0, 0, 1, 1};
  std::vector<std::int64_t> asked;
  const StepRewards out = ppo_step_rewards(rewards, terminated, truncated, nullptr, 0.5, [&](const torch::Tensor& rows) {
    for (std::int64_t i = 0; i < rows.numel(); ++i) asked.push_back(rows[i].item<std::int64_t>());
    return torch::full({rows.numel()}, 10.0f);
  });
  EXPECT_EQ(asked, std::vector<std::int64_t>{2});
  const std::vector<float> r(out.rewards.data_ptr<float>(), out.rewards.data_ptr<float>() + 4);
  const std::vector<float> d(out.dones.data_ptr<float>(), out.dones.data_ptr<float>() + 4);
  EXPECT_EQ(r, (std::vector<float>{1, 1, 6, 1}));
  EXPECT_EQ(d, (std::vector<float>{0, 1, 1, 1}));
}

TEST(PpoSpaces, ADiscreteActionSpaceNotStartingAtZeroIsRefused) {
  register_builtin_envs();
  register_builtin_algorithms();
  static bool once = [] {
    register_env("ShiftedActions-v0", env_entry<ShiftedActionsEnv>(10, std::nullopt, "actions 1, 2, 3"));
    return true;
  }();
  (void)once;
  try {
    make_agent("ppo", "ShiftedActions-v0");
    FAIL() << "accepted";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("PPO needs Discrete actions starting at 0"));
  }
  EXPECT_NO_THROW(make_agent("dqn", "ShiftedActions-v0"));
}

}  // namespace
}  // namespace rlzoo
