// GPU tests (label gpu): the same learner update on the CPU and on CUDA agrees to tolerance for
// DQN, PPO, DouZero's DMC and the Decision Transformer, a learner group on CUDA runs over NCCL,
// and a short PPO run on CUDA learns CartPole-v1. Each test skips, saying why, where LibTorch has no CUDA GPU (CI, Debian's CPU-only
// LibTorch); scripts/gpu-check runs them on a GPU machine.
#include <gtest/gtest.h>

#include <filesystem>

#include "rl/agent.h"
#include "datasets/dataset_writer.h"
#include "algorithms/dmc/dmc.h"
#include "algorithms/dqn/dqn.h"
#include "algorithms/ppo/ppo.h"
#include "algorithms/ppo/ppo_loss.h"
#include "core/common/rng.h"
#include "core/registry/env_registry.h"
#include "core/platform/loopback_port.h"
#include "core/torch/device.h"
#include "distributed/c10d_reducer.h"
#include "envs/doudizhu/encoding.h"
#include "tests/support/builtin_registries.h"
#include "tests/support/test_paths.h"

namespace rlzoo {
namespace {

#define RLZOO_SKIP_WITHOUT_GPU() \
  if (!cuda_usable()) GTEST_SKIP() << "no CUDA GPU: this LibTorch " << (cuda_compiled() ? "sees none" : "has no CUDA")


// Largest absolute difference between two parameter lists (the GPU one copied back).
double max_difference(const std::vector<torch::Tensor>& cpu, const std::vector<torch::Tensor>& gpu) {
  EXPECT_EQ(cpu.size(), gpu.size());
  double worst = 0;
  for (std::size_t i = 0; i < cpu.size() && i < gpu.size(); ++i)
    worst = std::max(worst, (cpu[i].detach() - gpu[i].detach().cpu()).abs().max().item<double>());
  return worst;
}

TEST(GpuLearners, DqnTrainsTheSameOnCpuAndCuda) {
  RLZOO_SKIP_WITHOUT_GPU();
  test::register_builtins();
  // Same seeds: the same env steps, replay samples and exploration coins; the greedy actions and
  // the updates are computed on each device.
  const std::vector<std::string> common{"hyperparams.learning_starts=200", "hyperparams.train_freq=4",
                                        "hyperparams.batch_size=32", "hyperparams.target_update_interval=100"};
  auto with = [&](const char* device) {
    auto o = common;
    o.push_back(std::string("device=") + device);
    return o;
  };
  auto cpu = make_agent("dqn", "CartPole-v1", with("cpu"));
  auto gpu = make_agent("dqn", "CartPole-v1", with("cuda"));
  for (auto* a : {cpu.get(), gpu.get()}) {
    a->set_progress_bar(false);
    a->learn(400);
  }
  auto& c = dynamic_cast<DqnAgent&>(*cpu);
  auto& g = dynamic_cast<DqnAgent&>(*gpu);
  EXPECT_TRUE(g.device().is_cuda());
  EXPECT_EQ(c.n_updates(), g.n_updates());
  EXPECT_LT(max_difference(c.q_net()->parameters(), g.q_net()->parameters()), 1e-4);
}

TEST(GpuLearners, PpoGradientsAndAdamStepAgree) {
  RLZOO_SKIP_WITHOUT_GPU();
  test::register_builtins();
  auto cpu = make_agent("ppo", "Pendulum-v1", {"device=cpu"});
  auto gpu = make_agent("ppo", "Pendulum-v1", {"device=cuda"});
  auto& c = dynamic_cast<PpoAgent&>(*cpu);
  auto& g = dynamic_cast<PpoAgent&>(*gpu);
  ASSERT_LT(max_difference(c.policy()->parameters(), g.policy()->parameters()), 1e-7);  // made on the CPU, moved
  // One minibatch of 64 transitions, built on the CPU.
  torch::manual_seed(3);
  RolloutBuffer::Batch mb;
  mb.obs = {torch::randn({64, 3})};
  mb.actions = torch::randn({64, 1});
  mb.old_values = torch::randn({64});
  mb.old_log_probs = torch::randn({64}) - 1.0;
  mb.advantages = torch::randn({64});
  mb.returns = torch::randn({64});
  auto step = [&](PpoAgent& agent) {
    auto batch = mb.to(agent.device());
    auto [dist, values] = agent.evaluate_minibatch(batch);
    const PpoLoss l = ppo_loss(dist, values, batch, agent.hyperparams(), 0.2);
    torch::optim::Adam adam(agent.policy()->parameters(), torch::optim::AdamOptions(3e-4));
    adam.zero_grad();
    l.loss.backward();
    std::vector<torch::Tensor> grads;
    for (const auto& p : agent.policy()->parameters()) grads.push_back(p.grad().clone());
    adam.step();
    return std::make_pair(l.loss.item<double>(), grads);
  };
  const auto [loss_c, grads_c] = step(c);
  const auto [loss_g, grads_g] = step(g);
  EXPECT_NEAR(loss_c, loss_g, 1e-4);
  EXPECT_LT(max_difference(grads_c, grads_g), 1e-4);
  EXPECT_LT(max_difference(c.policy()->parameters(), g.policy()->parameters()), 1e-5);
}

TEST(GpuLearners, DouZeroTrainStepAgrees) {
  RLZOO_SKIP_WITHOUT_GPU();
  test::register_builtins();
  const std::vector<std::string> o{"hyperparams.batch_size=4", "hyperparams.unroll_length=8"};
  auto cpu_o = o, gpu_o = o;
  cpu_o.push_back("device=cpu");
  gpu_o.push_back("device=cuda");
  auto cpu = make_agent("dmc", "DouDizhu-v0", cpu_o);
  auto gpu = make_agent("dmc", "DouDizhu-v0", gpu_o);
  auto& c = dynamic_cast<dmc::DmcAgent&>(*cpu);
  auto& g = dynamic_cast<dmc::DmcAgent&>(*gpu);
  const auto seat = doudizhu::Seat::Landlord;
  const std::int64_t n = 32, sd = doudizhu::state_dim(seat);
  dmc::SeatFrames frames;
  Rng rng(5);
  auto bits = [&](std::size_t count) {
    std::vector<std::uint8_t> v(count);
    for (auto& b : v) b = static_cast<std::uint8_t>(rng.below(2));
    return v;
  };
  frames.x = bits(static_cast<std::size_t>(n * sd));
  frames.a = bits(static_cast<std::size_t>(n * doudizhu::kCardDim));
  frames.z = bits(static_cast<std::size_t>(n * doudizhu::kHistoryRows * doudizhu::kHistoryRowDim));
  for (std::int64_t i = 0; i < n; ++i) frames.target.push_back(i % 2 ? 1.0f : -1.0f);
  for (int step = 0; step < 3; ++step) EXPECT_NEAR(c.train_step(seat, frames), g.train_step(seat, frames), 1e-4);
  EXPECT_LT(max_difference(c.nets()[seat].parameters(), g.nets()[seat].parameters()), 1e-4);
}

TEST(GpuLearners, DecisionTransformerStepsAgree) {
  RLZOO_SKIP_WITHOUT_GPU();
  test::register_builtins();
  // A small dataset of CartPole episodes with random actions; dropout off so that both devices
  // compute the same function.
  const std::string dir = test::make_temp_dir("rlzoo-gpu-dt");
  auto env = make_env("CartPole-v1");
  {
    data::DatasetWriter out(dir, "CartPole-v1", env->observation_space(), env->action_space(), {},
                            data::WriterOptions{.overwrite = true});
    Rng rng(7);
    std::vector<std::byte> obs(env->observation_space().byte_size()), act(env->action_space().byte_size());
    for (int ep = 0; ep < 8; ++ep) {
      data::EpisodeData e;
      env->reset(static_cast<std::uint64_t>(ep), obs);
      for (bool done = false; !done;) {
        e.observations.insert(e.observations.end(), obs.begin(), obs.end());
        env->action_space().sample(rng, act);
        e.actions.insert(e.actions.end(), act.begin(), act.end());
        const auto r = env->step(act, obs);
        e.rewards.push_back(static_cast<float>(r.reward));
        done = r.done();
        e.terminated = r.terminated;
        e.truncated = r.truncated;
      }
      out.add(e);
    }
    out.close();
  }
  const std::vector<std::string> o{"hyperparams.dataset=" + dir, "hyperparams.dropout=0", "hyperparams.batch_size=16",
                                   "hyperparams.context=10", "log_every=1000000"};
  auto cpu_o = o, gpu_o = o;
  cpu_o.push_back("device=cpu");
  gpu_o.push_back("device=cuda");
  auto cpu = make_agent("dt", "CartPole-v1", cpu_o);
  auto gpu = make_agent("dt", "CartPole-v1", gpu_o);
  for (auto* a : {cpu.get(), gpu.get()}) {
    a->set_progress_bar(false);
    a->learn(5);
  }
  // The saved weights, read back on the CPU, agree.
  const std::string saved_c = dir + "/agent_cpu", saved_g = dir + "/agent_gpu";
  cpu->save(saved_c);
  gpu->save(saved_g);
  auto a = load_agent(saved_c, {"device=cpu"}), b = load_agent(saved_g, {"device=cpu"});
  std::vector<torch::Tensor> obs{torch::randn({4, 4})};
  ActOptions det;
  det.deterministic = true;
  EXPECT_TRUE(torch::equal(a->act(obs, det), b->act(obs, det)));
}

// A learner group on CUDA forms over NCCL and runs its collectives. One learner: a machine
// with one GPU cannot hold two NCCL ranks (NCCL refuses two ranks on one device); the
// two-process group's logic is the Gloo one's (tests/distributed/learner_group_test.cpp).
TEST(GpuLearners, ALearnerGroupOnCudaUsesNccl) {
  RLZOO_SKIP_WITHOUT_GPU();
  ASSERT_TRUE(nccl_compiled()) << "a CUDA LibTorch without NCCL";
  C10dOptions o;
  o.rendezvous = "127.0.0.1:" + std::to_string(free_loopback_port());
  o.timeout_s = 60;
  o.device = torch::Device(torch::kCUDA, 0);
  C10dGradientReducer group(o);
  EXPECT_EQ(group.backend(), C10dBackend::nccl);
  auto p = torch::tensor({1.0f, 2.0f, 3.0f}, torch::Device(torch::kCUDA, 0)).requires_grad_();
  p.mutable_grad() = torch::tensor({0.5f, -1.0f, 4.0f}, torch::Device(torch::kCUDA, 0));
  group.reduce({p});
  EXPECT_TRUE(torch::equal(p.grad().cpu(), torch::tensor({0.5f, -1.0f, 4.0f})));
  group.synchronize({p});
  EXPECT_TRUE(torch::equal(p.detach().cpu(), torch::tensor({1.0f, 2.0f, 3.0f})));
  EXPECT_EQ(group.minimum({7, -2, 5}), (std::vector<std::int64_t>{7, -2, 5}));
}

TEST(GpuLearners, PpoOnCudaLearnsCartPole) {
  RLZOO_SKIP_WITHOUT_GPU();
  test::register_builtins();
  auto agent = make_agent("ppo", "CartPole-v1", {"device=cuda", "hyperparams.n_envs=8", "hyperparams.n_steps=32",
                                                 "hyperparams.batch_size=256", "hyperparams.n_epochs=10"});
  agent->set_progress_bar(false);
  agent->learn(60'000);
  const double mean = agent->evaluate(10).mean_return();
  EXPECT_GE(mean, 400.0) << "PPO on CUDA reached a mean return of " << mean << " on CartPole-v1 after 60k steps";
}

}  // namespace
}  // namespace rlzoo
