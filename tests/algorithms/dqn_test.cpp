// DQN through the high-level API: config errors, the Box-action error, short learn() runs with
// every option, save -> load -> act, the epsilon schedule, masks and callbacks.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "rl/agent.h"
#include "algorithms/builtin.h"
#include "algorithms/dqn/dqn.h"
#include "core/checkpoint/reader.h"
#include "envs/builtin.h"
#include "tests/support/test_paths.h"

namespace rlzoo {
namespace {

using ::testing::HasSubstr;

class Dqn : public ::testing::Test {
 protected:
  void SetUp() override {
    register_builtin_envs();
    register_builtin_algorithms();
  }
};

using test::error_of;

// A small, fast configuration: 2 envs, training from step 64, every 4 vector steps.
std::vector<std::string> tiny(std::vector<std::string> extra = {}) {
  std::vector<std::string> o{"n_timesteps=1000",
                             "hyperparams.n_envs=2",
                             "hyperparams.buffer_size=400",
                             "hyperparams.learning_starts=64",
                             "hyperparams.batch_size=16",
                             "hyperparams.target_update_interval=50",
                             "hyperparams.policy.hidden=[32, 32]"};
  o.insert(o.end(), extra.begin(), extra.end());
  return o;
}

DqnAgent& as_dqn(Agent& a) { return dynamic_cast<DqnAgent&>(a); }

TEST_F(Dqn, BadHyperparametersGiveOneClearErrorEach) {
  EXPECT_THAT(error_of([] { make_agent("dqn", "CartPole-v1", {"hyperparams.exploration_fractoin=0.2"}); }),
              HasSubstr("unknown key (did you mean 'exploration_fraction'?)"));
  EXPECT_THAT(error_of([] { make_agent("dqn", "CartPole-v1", {"hyperparams.loss=l1"}); }),
              HasSubstr("'l1' is not one of: huber, mse"));
  EXPECT_THAT(error_of([] { make_agent("dqn", "CartPole-v1", {"hyperparams.tau=0"}); }),
              HasSubstr("key 'hyperparams.tau'"));
  EXPECT_THAT(error_of([] { make_agent("dqn", "CartPole-v1", {"hyperparams.exploration_final_eps=1.5"}); }),
              HasSubstr("out of range"));
  EXPECT_THAT(error_of([] { make_agent("dqn", "CartPole-v1", {"hyperparams.gradient_steps=0"}); }),
              HasSubstr("key 'hyperparams.gradient_steps': must be >= 1, or -1"));
  EXPECT_THAT(error_of([] {
                make_agent("dqn", "CartPole-v1", {"hyperparams.n_envs=4", "hyperparams.buffer_size=6"});
              }),
              HasSubstr("at least 2 transitions per env"));
  EXPECT_THAT(error_of([] { make_agent("dqn", "CartPole-v1", {"hyperparams.policy.ortho_init=true"}); }),
              HasSubstr("ortho_init is not supported by DQN"));
  EXPECT_THAT(error_of([] { make_agent("dqn", "CartPole-v1", {"hyperparams.n_step=0"}); }), HasSubstr("n_step"));
  // From a file: the error names the file, line, column and key.
  const std::string dir = test::make_temp_dir("rlzoo-dqn-preset");
  std::ofstream(dir + "/bad.yaml") << "algo: dqn\nenv: CartPole-v1\nhyperparams:\n  batch_size: 0\n";
  EXPECT_THAT(error_of([&] { Agent::from_preset(dir + "/bad.yaml"); }),
              HasSubstr("bad.yaml:4:15: key 'hyperparams.batch_size': value 0 is out of range"));
  std::filesystem::remove_all(dir);
}

TEST_F(Dqn, BoxActionSpaceIsOneClearError) {
  const std::string e = error_of([] { make_agent("dqn", "Pendulum-v1"); });
  EXPECT_THAT(e, HasSubstr("key 'env': dqn learns on Discrete actions; env Pendulum-v1 has Box("));
  EXPECT_THAT(e, HasSubstr("(algorithms that take its kinds of spaces: "));
  EXPECT_THAT(e, HasSubstr("ppo"));
  const std::string dir = test::make_temp_dir("rlzoo-dqn-preset");
  std::ofstream(dir + "/box.yaml") << "algo: dqn\nenv: MountainCarContinuous-v0\n";
  EXPECT_THAT(error_of([&] { Agent::from_preset(dir + "/box.yaml"); }),
              HasSubstr("box.yaml:2:6: key 'env': dqn learns on Discrete actions"));
  std::filesystem::remove_all(dir);
}

TEST_F(Dqn, PresetsLoadWithTheZooValues) {
  for (const char* env : {"CartPole-v1", "Acrobot-v1", "MountainCar-v0"}) {
    auto agent = Agent::from_preset(test::source_dir() + "/configs/dqn/" + env + ".yaml");
    EXPECT_EQ(agent->algorithm(), "dqn");
    EXPECT_EQ(agent->env_spec().id, env);
    EXPECT_EQ(as_dqn(*agent).hyperparams().policy.hidden, (std::vector<std::int64_t>{256, 256}));
  }
  auto cp = Agent::from_preset(test::source_dir() + "/configs/dqn/CartPole-v1.yaml");
  const DqnConfig& c = as_dqn(*cp).hyperparams();
  EXPECT_DOUBLE_EQ(c.learning_rate, 2.3e-3);
  EXPECT_EQ(c.train_freq, 256);
  EXPECT_EQ(c.gradient_steps, 128);
  EXPECT_EQ(cp->config()["n_timesteps"].as<std::int64_t>(), 50'000);
}

TEST_F(Dqn, EpsilonDecaysLinearlyPerEnvStep) {
  DqnConfig c;
  c.exploration_initial_eps = 1.0;
  c.exploration_final_eps = 0.1;
  c.exploration_fraction = 0.5;
  EXPECT_DOUBLE_EQ(dqn_exploration_rate(c, 0, 1000), 1.0);
  EXPECT_DOUBLE_EQ(dqn_exploration_rate(c, 250, 1000), 0.55);
  EXPECT_DOUBLE_EQ(dqn_exploration_rate(c, 500, 1000), 0.1);
  EXPECT_DOUBLE_EQ(dqn_exploration_rate(c, 900, 1000), 0.1);
  c.exploration_fraction = 0.0;  // no decay: final epsilon from the start
  EXPECT_DOUBLE_EQ(dqn_exploration_rate(c, 0, 1000), 0.1);
  // The agent follows it over the preset's n_timesteps, counting env steps of all envs.
  auto agent = make_agent("dqn", "CartPole-v1",
                          tiny({"hyperparams.exploration_fraction=0.5", "hyperparams.exploration_final_eps=0.1"}));
  agent->set_progress_bar(false);
  EXPECT_DOUBLE_EQ(as_dqn(*agent).exploration_rate(), 1.0);
  agent->learn(251);  // 2 envs: 126 vector steps, 252 env steps
  EXPECT_EQ(agent->num_timesteps(), 252);
  EXPECT_DOUBLE_EQ(as_dqn(*agent).exploration_rate(), 1.0 - 0.9 * 252.0 / 500.0);
}

TEST_F(Dqn, ShortRunsTrainWithEveryOption) {
  const std::vector<std::vector<std::string>> variants{
      {},
      {"hyperparams.double_q=true", "hyperparams.policy.dueling=true"},
      {"hyperparams.n_step=3", "hyperparams.loss=mse", "hyperparams.tau=0.5", "hyperparams.gradient_steps=-1"},
  };
  for (const auto& v : variants) {
    auto agent = make_agent("dqn", "CartPole-v1", tiny(v));
    agent->set_progress_bar(false);
    const auto before = as_dqn(*agent).q_net()->parameters()[0].clone();
    agent->learn(300);
    auto& dqn = as_dqn(*agent);
    EXPECT_EQ(agent->num_timesteps(), 300);
    EXPECT_GT(dqn.n_updates(), 0);
    EXPECT_FALSE(before.equal(dqn.q_net()->parameters()[0])) << "the Q network did not change";
    ASSERT_NE(dqn.replay_buffer(), nullptr);
    EXPECT_EQ(dqn.replay_buffer()->steps_added(), 150);
    // learn() continues where it stopped.
    agent->learn(100);
    EXPECT_EQ(agent->num_timesteps(), 400);
  }
}

// Records, after each vector step, whether the target net equals the online net.
class TargetWatcher : public Callback {
 public:
  bool on_step(Agent& agent, std::int64_t t) override {
    auto& dqn = dynamic_cast<DqnAgent&>(agent);
    const auto online = dqn.q_net()->parameters(), target = dqn.q_target()->parameters();
    bool same = true;
    for (std::size_t i = 0; i < online.size(); ++i) same = same && online[i].equal(target[i]);
    equal[t] = same;
    return true;
  }
  std::map<std::int64_t, bool> equal;
};

TEST_F(Dqn, HardTargetCopyEveryIntervalOverEnvs) {
  // target_update_interval 50 env steps = a copy every 25 vector steps with 2 envs; training
  // after every 4 vector steps moves the online net away from it again.
  auto agent = make_agent("dqn", "CartPole-v1", tiny({"hyperparams.learning_starts=0"}));
  agent->set_progress_bar(false);
  CallbackList callbacks;
  auto owned = std::make_unique<TargetWatcher>();
  TargetWatcher* w = owned.get();
  callbacks.add(std::move(owned));
  agent->learn(120, &callbacks);
  EXPECT_FALSE(w->equal.at(48));  // trained since the initial copy
  EXPECT_TRUE(w->equal.at(50));   // copied at vector step 25
  EXPECT_TRUE(w->equal.at(56));   // no training inside the block of steps 25..28
  EXPECT_FALSE(w->equal.at(58));  // trained after that block
  EXPECT_TRUE(w->equal.at(100));  // copied at vector step 50
}

TEST_F(Dqn, SaveLoadActGivesIdenticalActions) {
  auto agent = make_agent("dqn", "CartPole-v1", tiny());
  agent->set_progress_bar(false);
  agent->learn(300);
  const std::string root = test::make_temp_dir("rlzoo-dqn-save");
  agent->save(root + "/agent");
  auto loaded = load_agent(root + "/agent");
  EXPECT_EQ(loaded->algorithm(), "dqn");
  EXPECT_EQ(loaded->num_timesteps(), 300);
  torch::manual_seed(5);
  const auto obs = torch::randn({64, 4});
  EXPECT_TRUE(agent->act(obs).equal(loaded->act(obs)));
  // Exploration draws come from the saved Rng: epsilon-greedy actions match too.
  EXPECT_TRUE(
      agent->act(obs, ActOptions{.deterministic = false}).equal(loaded->act(obs, ActOptions{.deterministic = false})));
  auto& a = as_dqn(*agent);
  auto& b = as_dqn(*loaded);
  EXPECT_EQ(b.n_updates(), a.n_updates());
  const auto ta = a.q_target()->parameters(), tb = b.q_target()->parameters();
  for (std::size_t i = 0; i < ta.size(); ++i) EXPECT_TRUE(ta[i].equal(tb[i]));
  ASSERT_NE(b.replay_buffer(), nullptr);
  EXPECT_EQ(b.replay_buffer()->size(), a.replay_buffer()->size());
  EXPECT_EQ(b.replay_buffer()->pos(), a.replay_buffer()->pos());
  // The loaded agent trains on.
  loaded->set_progress_bar(false);
  loaded->learn(40);
  EXPECT_EQ(loaded->num_timesteps(), 340);

  // Without the replay buffer when the preset opts out.
  auto lean = make_agent("dqn", "CartPole-v1", tiny({"checkpoint.save_replay_buffer=false"}));
  lean->set_progress_bar(false);
  lean->learn(100);
  lean->save(root + "/lean");
  EXPECT_FALSE(CheckpointReader::open(root + "/lean").has("replay_buffer.pt"));
  EXPECT_TRUE(CheckpointReader::open(root + "/agent").has("replay_buffer.pt"));
  EXPECT_EQ(as_dqn(*load_agent(root + "/lean")).replay_buffer(), nullptr);
  std::filesystem::remove_all(root);
}

bool same_parameters(Agent& a, Agent& b) {
  const auto pa = as_dqn(a).q_net()->parameters(), pb = as_dqn(b).q_net()->parameters();
  for (std::size_t i = 0; i < pa.size(); ++i)
    if (!pa[i].equal(pb[i])) return false;
  return true;
}

TEST_F(Dqn, OneSeedGivesIdenticalRunsAndSeedsDiverge) {
  auto run = [](int seed) {
    auto agent = make_agent("dqn", "CartPole-v1", tiny({"seed=" + std::to_string(seed), "hyperparams.n_step=2"}));
    agent->set_progress_bar(false);
    agent->learn(300);
    return agent;
  };
  auto a = run(3), b = run(3), c = run(4);
  EXPECT_TRUE(same_parameters(*a, *b));
  EXPECT_FALSE(same_parameters(*a, *c));
}

// Resuming from a checkpoint reproduces the uninterrupted run bit for bit (synchronous, CPU,
// one thread): networks, optimizer, replay buffer, envs mid-episode, generator, Rng, counters.
// `cycle` is a whole number of train_freq blocks, where checkpoints are taken.
void check_resume(const std::vector<std::string>& overrides, std::int64_t cycle) {
  auto straight = make_agent("dqn", "CartPole-v1", overrides);
  straight->set_progress_bar(false);
  straight->learn(2 * cycle);
  const std::string root = test::make_temp_dir("rlzoo-dqn-resume");
  {
    auto first = make_agent("dqn", "CartPole-v1", overrides);
    first->set_progress_bar(false);
    first->learn(cycle);
    first->save(root + "/ckpt");
  }
  EXPECT_TRUE(CheckpointReader::open(root + "/ckpt").has("envs.json"));
  auto resumed = load_agent(root + "/ckpt");  // a fresh agent, as in a new process
  resumed->set_progress_bar(false);
  resumed->learn(cycle);
  EXPECT_EQ(resumed->num_timesteps(), 2 * cycle);
  EXPECT_EQ(as_dqn(*resumed).n_updates(), as_dqn(*straight).n_updates());
  EXPECT_TRUE(same_parameters(*straight, *resumed));
  const auto ta = as_dqn(*straight).q_target()->parameters(), tb = as_dqn(*resumed).q_target()->parameters();
  for (std::size_t i = 0; i < ta.size(); ++i) EXPECT_TRUE(ta[i].equal(tb[i]));
  const auto obs = torch::randn({16, 4});
  EXPECT_TRUE(straight->act(obs, ActOptions{.deterministic = false})
                  .equal(resumed->act(obs, ActOptions{.deterministic = false})));
  std::filesystem::remove_all(root);
}

TEST_F(Dqn, ResumeContinuesBitForBit) {
  // 2 envs x train_freq 4 = 8 env steps per block; 200 = 25 blocks, episodes mid-way.
  check_resume(tiny({"hyperparams.exploration_fraction=0.5"}), 200);
}

TEST_F(Dqn, ResumeWithEveryOptionContinuesBitForBit) {
  check_resume(tiny({"hyperparams.n_step=3", "hyperparams.double_q=true", "hyperparams.policy.dueling=true",
                     "hyperparams.tau=0.5", "hyperparams.gradient_steps=-1", "hyperparams.train_freq=5"}),
               160);
}

TEST_F(Dqn, ActionsKeepToMasks) {
  auto agent = make_agent("dqn", "CartPole-v1", tiny());
  const auto obs = torch::randn({32, 4});
  const auto mask = torch::zeros({32, 2}, torch::kBool).index_fill_(1, torch::tensor({1}), true);
  // At the start epsilon is 1: every action is random, yet legal.
  EXPECT_TRUE((agent->act(obs, ActOptions{.deterministic = false, .action_mask = mask}) == 1).all().item<bool>());
  EXPECT_TRUE((agent->act(obs, ActOptions{.deterministic = true, .action_mask = mask}) == 1).all().item<bool>());
  const auto a = agent->act(obs);
  EXPECT_EQ(a.scalar_type(), torch::kInt64);
  EXPECT_EQ(a.sizes(), (std::vector<std::int64_t>{32}));
}

class CountingCallback : public Callback {
 public:
  explicit CountingCallback(std::int64_t stop_at) : stop_at_(stop_at) {}
  void on_training_start(Agent&) override { ++starts; }
  bool on_step(Agent&, std::int64_t t) override {
    last = t;
    ++steps;
    return t < stop_at_;
  }
  void on_rollout_end(Agent&, std::int64_t) override { ++rollouts; }
  void on_training_end(Agent&) override { ++ends; }
  int starts = 0, steps = 0, rollouts = 0, ends = 0;
  std::int64_t last = 0;

 private:
  std::int64_t stop_at_;
};

TEST_F(Dqn, CallbacksSeeEveryStepAndCanStop) {
  auto agent = make_agent("dqn", "CartPole-v1", tiny());
  agent->set_progress_bar(false);
  CallbackList callbacks;
  auto owned = std::make_unique<CountingCallback>(100);
  CountingCallback* cb = owned.get();
  callbacks.add(std::move(owned));
  agent->learn(1000, &callbacks);
  EXPECT_EQ(agent->num_timesteps(), 100);  // stopped after the step that reached 100
  EXPECT_EQ(cb->steps, 50);
  EXPECT_EQ(cb->last, 100);
  EXPECT_EQ(cb->starts, 1);
  EXPECT_EQ(cb->ends, 1);
  EXPECT_EQ(cb->rollouts, 13);  // train_freq 4 vector steps: 12 full blocks and the stopped one
}

}  // namespace
}  // namespace rlzoo
