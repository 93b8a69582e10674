// DQN's plain-pass gradient step (algorithms/dqn/dqn_fused_update.h) against its LibTorch step
// (autograd through the same fused chains and dqn_loss.h's node): two agents from one seed, one
// on each path, see the same replay data and draws, and since both run the same kernels in the
// same order their networks must stay equal bit for bit, with every option the step has.
#include <gtest/gtest.h>

#include <torch/torch.h>

#include <string>
#include <vector>

#include "algorithms/dqn/dqn.h"
#include "algorithms/dqn/dqn_fused_update.h"
#include "rl/agent.h"
#include "tests/support/builtin_registries.h"

namespace rlzoo {
namespace {

std::unique_ptr<Agent> cartpole_dqn(std::vector<std::string> sets, bool fused) {
  test::register_builtins();
  sets.insert(sets.end(), {"seed=3", "torch_threads=1", "hyperparams.batch_size=32", "hyperparams.learning_starts=100",
                           "hyperparams.train_freq=4", "hyperparams.target_update_interval=50",
                           "hyperparams.policy.hidden=[32, 32]"});
  auto agent = make_agent("dqn", "CartPole-v1", sets);
  agent->set_progress_bar(false);
  auto& dqn = dynamic_cast<DqnAgent&>(*agent);
  dqn.use_fused_update(fused);
  EXPECT_EQ(dqn.fused_update_applies(), fused);
  return agent;
}

// The online and target networks' parameters, copied, after `steps` env steps.
std::vector<torch::Tensor> trained(const std::vector<std::string>& sets, bool fused, std::int64_t steps) {
  auto agent = cartpole_dqn(sets, fused);
  agent->learn(steps);
  auto& dqn = dynamic_cast<DqnAgent&>(*agent);
  EXPECT_GT(dqn.n_updates(), 50);
  std::vector<torch::Tensor> out;
  for (auto* m : {dqn.q_net().get(), dqn.q_target().get()})
    for (const auto& p : m->parameters()) out.push_back(p.detach().clone());
  return out;
}

void expect_paths_equal(const std::vector<std::string>& sets) {
  const auto plain = trained(sets, true, 400), autograd = trained(sets, false, 400);
  ASSERT_EQ(plain.size(), autograd.size());
  for (std::size_t i = 0; i < plain.size(); ++i)
    EXPECT_TRUE(torch::equal(plain[i], autograd[i])) << "parameter " << i << ": "
                                                     << (plain[i] - autograd[i]).abs().max().item<double>();
}

TEST(DqnFusedUpdate, EqualsTheLibTorchStepBitForBit) { expect_paths_equal({}); }

TEST(DqnFusedUpdate, EqualsItWithDoubleQSquaredErrorNStepsAndTanh) {
  expect_paths_equal({"hyperparams.double_q=true", "hyperparams.loss=mse", "hyperparams.n_step=3",
                      "hyperparams.policy.activation=tanh"});
}

TEST(DqnFusedUpdate, StandsAsideWhereItDoesNotApply) {
  test::register_builtins();
  auto dueling = make_agent("dqn", "CartPole-v1", {"hyperparams.policy.dueling=true"});
  EXPECT_FALSE(dynamic_cast<DqnAgent&>(*dueling).fused_update_applies());
  auto plain = make_agent("dqn", "CartPole-v1", {});
  EXPECT_TRUE(dynamic_cast<DqnAgent&>(*plain).fused_update_applies());
  dynamic_cast<DqnAgent&>(*plain).q_net()->use_fused_path(false);  // the modules' own operations
  EXPECT_FALSE(dynamic_cast<DqnAgent&>(*plain).fused_update_applies());
}

}  // namespace
}  // namespace rlzoo
