// `rlzoo bench gpu`: learner updates per second on the CPU (the baseline) and on CUDA for
//   - PPO with a MuJoCo-sized MLP (HalfCheetah's 17 observations and 6 actions, separate
//     256x256 actor and critic, as rl-baselines3-zoo's tuned preset), minibatches of 64;
//   - DQN's gradient step with a 256x256 Q-network, batch 64 (apps/bench/learner_updates.h);
//   - DouZero's network (LSTM over the history, 6 layers of 512) on a learner batch of
//     32 x 100 frames, the landlord's net;
//   - the Decision Transformer at its default size (K = 20, 3 layers, width 128, batch 64).
// Each update is the learner's own code path (run_ppo_epochs, DqnUpdate, DmcAgent::train_step,
// DtAgent::learn). Without a CUDA GPU the CPU figures are printed and each GPU line says why
// it is missing.
#include <fmt/format.h>

#include "rl/agent.h"
#include "algorithms/dmc/dmc.h"
#include "algorithms/ppo/ppo_loss.h"
#include "apps/bench/bench_dt.h"
#include "apps/bench/bench_util.h"
#include "apps/bench/learner_updates.h"
#include "apps/commands.h"
#include "core/common/rng.h"
#include "core/torch/device.h"
#include "envs/doudizhu/encoding.h"

namespace rlzoo::cli {

namespace {

struct GpuBenchOptions {
  double seconds = 5;
  int repeats = 3;
  int threads = 1;
};

// Minibatch updates per second of PPO's update on `device`.
double ppo_rate(const torch::Device& device, const GpuBenchOptions& o) {
  PolicyConfig policy;
  policy.hidden = {256, 256};
  policy.activation = "relu";
  policy.ortho_init = false;
  torch::manual_seed(0);
  ActorCritic net(Space::box(-1e9, 1e9, {17}), Space::box(-1.0, 1.0, {6}), policy);
  net->to(device);
  PpoConfig cfg;
  cfg.n_epochs = 1;
  constexpr int kBatches = 8, kRows = 64;
  std::vector<RolloutBuffer::Batch> batches;
  for (int i = 0; i < kBatches; ++i) {
    RolloutBuffer::Batch b;
    b.obs = {torch::randn({kRows, 17})};
    b.actions = torch::randn({kRows, 6});
    b.old_values = torch::randn({kRows});
    b.old_log_probs = torch::randn({kRows}) - 6.0;
    b.advantages = torch::randn({kRows});
    b.returns = torch::randn({kRows});
    batches.push_back(b.to(device));
  }
  torch::optim::Adam adam(net->parameters(), torch::optim::AdamOptions(3e-4));
  std::int64_t n_updates = 0;
  auto work = [&] {
    run_ppo_epochs(
        cfg, 0.2, adam, net->parameters(), [&] { return batches; },
        [&](const RolloutBuffer::Batch& mb) { return net->forward(mb.obs, mb.action_masks); }, nullptr, n_updates, 0);
  };
  work();  // warm-up: allocator, kernels
  return median_rate(work, kBatches, o.seconds, o.repeats);
}

// DQN gradient steps per second (LibTorch's path: the target's forward, Huber loss, clip,
// Adam) with a 256x256 Q-network on CartPole's spaces, batch 64, on `device`. Its gradient
// check reads the loss back, so each step waits for the device.
double dqn_rate(const torch::Device& device, const GpuBenchOptions& o) {
  bench::DqnUpdate update(256, /*fused=*/false, device);
  auto work = [&] { update.step(); };
  work();
  return median_rate(work, 1.0, o.seconds, o.repeats);
}

// Learner steps per second of DouZero's landlord network on B x T = 32 x 100 frames.
double douzero_rate(const std::string& device, const GpuBenchOptions& o) {
  auto agent = make_agent("dmc", "DouDizhu-v0",
                          {"device=" + device, "hyperparams.batch_size=32", "hyperparams.unroll_length=100",
                           fmt::format("torch_threads={}", o.threads)});
  auto& dmc = dynamic_cast<dmc::DmcAgent&>(*agent);
  const auto seat = doudizhu::Seat::Landlord;
  const std::int64_t n = 32 * 100, sd = doudizhu::state_dim(seat);
  dmc::SeatFrames frames;
  Rng rng(1);
  auto bits = [&](std::int64_t count) {
    std::vector<std::uint8_t> v(static_cast<std::size_t>(count));
    for (auto& b : v) b = static_cast<std::uint8_t>(rng.below(2));
    return v;
  };
  frames.x = bits(n * sd);
  frames.a = bits(n * doudizhu::kCardDim);
  frames.z = bits(n * doudizhu::kHistoryDim);
  frames.target.assign(static_cast<std::size_t>(n), 1.0f);
  auto work = [&] { dmc.train_step(seat, frames); };  // its loss.item() waits for the device
  work();
  return median_rate(work, 1.0, o.seconds, o.repeats);
}

// Gradient steps per second of the Decision Transformer (default model) on `device`.
double dt_rate(const std::string& device, const std::string& data, const GpuBenchOptions& o) {
  auto agent = make_agent("dt", "Pendulum-v1",
                          {"hyperparams.dataset=" + data, "device=" + device,
                           fmt::format("torch_threads={}", o.threads), "log_every=1000000000"});
  agent->set_progress_bar(false);
  agent->learn(3);  // loads the data, warms up
  const std::int64_t steps = device == "cpu" ? 5 : 50;
  auto work = [&] {
    agent->learn(steps);
    if (device != "cpu") torch::cuda::synchronize();
  };
  return median_rate(work, static_cast<double>(steps), o.seconds, o.repeats);
}

void run(const GpuBenchOptions& o) {
  torch::set_num_threads(o.threads);
  const bool gpu = cuda_usable();
  const std::string why = cuda_compiled() ? "this LibTorch sees no CUDA GPU"
                                          : "this LibTorch has no CUDA (Debian's is CPU-only; see scripts/cuda-build)";
  nlohmann::json where{{"cpu_threads", o.threads}};
  if (gpu) where["gpu"] = fmt::format("{} CUDA device(s)", cuda_device_count());
  auto report = [&](const std::string& name, const std::string& unit, double cpu, const std::function<double()>& on_gpu) {
    print_bench_line(fmt::format("gpu/{}/cpu", name), cpu, unit, nullptr, where);
    if (!gpu) {
      nlohmann::json extra = where;
      extra["skipped"] = why;
      print_bench_line(fmt::format("gpu/{}/cuda", name), std::nan(""), unit, cpu, extra);
      return;
    }
    const double rate = on_gpu();
    nlohmann::json extra = where;
    extra["speedup_over_cpu"] = rate / cpu;
    print_bench_line(fmt::format("gpu/{}/cuda", name), rate, unit, cpu, extra);
  };
  report("ppo_mlp_256x256_batch64", "updates/s", ppo_rate(torch::kCPU, o),
         [&] { return ppo_rate(torch::Device(torch::kCUDA), o); });
  report("dqn_mlp_256x256_batch64", "updates/s", dqn_rate(torch::kCPU, o),
         [&] { return dqn_rate(torch::Device(torch::kCUDA), o); });
  report("douzero_batch_32x100", "updates/s", douzero_rate("cpu", o), [&] { return douzero_rate("cuda", o); });
  const std::string data = synthetic_dt_dataset("Pendulum-v1");
  report("dt_default_batch64", "updates/s", dt_rate("cpu", data, o), [&] { return dt_rate("cuda", data, o); });
}

}  // namespace

void add_gpu_bench_command(CLI::App& bench) {
  auto o = std::make_shared<GpuBenchOptions>();
  auto* cmd = bench.add_subcommand("gpu", "Learner updates per second on the CPU and on CUDA (PPO, DQN, DouZero, DT)");
  cmd->add_option("--seconds", o->seconds, "Seconds per timing repeat");
  cmd->add_option("--repeats", o->repeats, "Timing repeats (the median is printed)");
  cmd->add_option("--threads", o->threads, "LibTorch threads of the CPU runs");
  cmd->callback([o] { run(*o); });
}

}  // namespace rlzoo::cli
