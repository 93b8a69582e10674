// The recurrent encoder resets its state at episode starts; evaluation and checkpoint
// callbacks keep the best agent and the last N checkpoints.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "rl/agent.h"
#include "rl/nets/layers.h"
#include "algorithms/builtin.h"
#include "core/checkpoint/manager.h"
#include "core/logging/tfrecord_reader.h"
#include "envs/builtin.h"
#include "tests/support/test_paths.h"

namespace rlzoo {
namespace {

TEST(RecurrentEncoder, EpisodeStartResetsTheState) {
  torch::manual_seed(0);
  for (const char* cell : {"lstm", "gru"}) {
    RecurrentEncoder rnn(cell, 3, 8);
    const auto x = torch::randn({5, 2, 3});
    auto starts = torch::zeros({5, 2}, torch::kBool);
    starts[3][1] = true;  // env 1 starts a new episode at t = 3
    auto [out, state] = rnn->forward(x, rnn->initial_state(2), starts);
    EXPECT_EQ(out.sizes(), (std::vector<std::int64_t>{5, 2, 8}));
    // Env 1 from t = 3 equals a fresh run over x[3:, 1] from a zero state.
    auto [fresh, unused] = rnn->forward(x.slice(0, 3).slice(1, 1, 2), rnn->initial_state(1),
                                        torch::zeros({2, 1}, torch::kBool));
    EXPECT_TRUE(torch::allclose(out.slice(0, 3).slice(1, 1, 2), fresh, 1e-6, 1e-6)) << cell;
    // Env 0 was not reset, so it differs from a fresh run.
    auto [fresh0, unused0] = rnn->forward(x.slice(0, 3).slice(1, 0, 1), rnn->initial_state(1),
                                          torch::zeros({2, 1}, torch::kBool));
    EXPECT_FALSE(torch::allclose(out.slice(0, 3).slice(1, 0, 1), fresh0, 1e-6, 1e-6)) << cell;
  }
  EXPECT_THROW(RecurrentEncoder("rnn", 3, 8), UserError);
}

// PPO on CartPole with 128-step rollouts and one epoch: callbacks fire often and cheaply.
std::unique_ptr<Agent> small_cartpole_ppo() {
  register_builtin_envs();
  register_builtin_algorithms();
  auto agent = make_agent("ppo", "CartPole-v1", {"hyperparams.n_envs=2", "hyperparams.n_steps=64",
                                                 "hyperparams.batch_size=64", "hyperparams.n_epochs=1"});
  agent->set_progress_bar(false);
  return agent;
}

TEST(Callbacks, EvalKeepsBestAndCheckpointsRotate) {
  const std::string dir = test::make_temp_dir("rlzoo-callbacks");
  auto agent = small_cartpole_ppo();
  CallbackList callbacks;
  auto eval = std::make_unique<EvalCallback>(256, 2, dir + "/best");
  auto* e = eval.get();
  callbacks.add(std::move(eval));
  callbacks.add(std::make_unique<CheckpointCallback>(dir + "/checkpoints", 128, 2));
  agent->learn(128 * 6, &callbacks);
  EXPECT_EQ(e->history().size(), 3u);
  EXPECT_TRUE(std::filesystem::exists(dir + "/best/manifest.json"));
  CheckpointManager manager(dir + "/checkpoints");
  EXPECT_EQ(manager.steps(), (std::vector<std::int64_t>{640, 768}));
  EXPECT_EQ(manager.latest().step, 768);
  EXPECT_EQ(load_agent(dir + "/checkpoints/" + CheckpointManager::dir_name(768))->num_timesteps(), 768);
}

// SB3's EvalCallback logs eval/mean_reward and eval/mean_ep_length at the evaluation's step;
// so does ours, into the run's TensorBoard file and progress.csv.
TEST(Callbacks, EvalFiguresReachTensorBoardAtTheirStep) {
  const std::string dir = test::make_temp_dir("rlzoo-eval-log");
  auto agent = small_cartpole_ppo();
  agent->set_log_dir(dir + "/logs");
  CallbackList callbacks;
  auto eval = std::make_unique<EvalCallback>(256, 2);
  auto* e = eval.get();
  callbacks.add(std::move(eval));
  agent->learn(128 * 6, &callbacks);
  EXPECT_EQ(agent->training_logger(), nullptr);  // only while learn() runs
  ASSERT_EQ(e->history().size(), 3u);

  const auto files = find_event_files(dir + "/logs");
  ASSERT_EQ(files.size(), 1u);
  const auto events = read_event_file(files[0]).events;
  const auto rewards = scalar_points(events, "eval/mean_reward");
  ASSERT_EQ(rewards.size(), 3u);
  for (std::size_t i = 0; i < rewards.size(); ++i) {
    EXPECT_EQ(rewards[i].step, e->history()[i].first);
    EXPECT_FLOAT_EQ(rewards[i].value, static_cast<float>(e->history()[i].second));
  }
  const auto lengths = scalar_points(events, "eval/mean_ep_length");
  ASSERT_EQ(lengths.size(), 3u);
  EXPECT_GE(lengths[0].value, 5.0f);  // no CartPole episode is shorter
  std::ifstream csv(dir + "/logs/progress.csv");
  std::string header;
  std::getline(csv, header);
  EXPECT_NE(header.find("eval/mean_reward"), std::string::npos) << header;
}

}  // namespace
}  // namespace rlzoo
