// `rlzoo bench learner`: how fast PPO's and DQN's gradient updates run on small networks, and how
// close that is to what the machine's BLAS can do. For each width (64-64, 256-256) it prints
//   - PPO: one minibatch step of the CartPole preset's shape (batch 256, separate actor and
//     critic trunks, clipped surrogate, Adam), the path `run_ppo_epochs` takes;
//   - DQN: one gradient step of the bench preset's shape (batch 64, target-network forward,
//     Huber loss, Adam), the path DqnAgent::train takes;
// as updates/s and as achieved GFLOP/s (the multiply-adds of the update's matrix products: the
// forward, the weight gradients and the input gradients every layer but the first needs; a
// critic under SAC's or TD3's actor loss: the input gradients of every layer, no weight
// gradients), beside
//   - `gemm_same_shapes`: the same matrix products alone, back to back through the BLAS that
//     LibTorch uses (what the update would reach with no framework cost at all), and
//   - `plain_cpp_gemm`: the same products as plain C++ loops (no BLAS), and
//   - `sgemm_peak`: one-thread sgemm on 512x512 matrices, the machine's peak for this BLAS.
// and, through the agents' own learn() (`sac`, `td3`): SAC's and TD3's gradient steps on
// Pendulum-v1 at batch 256, both networks width-width, timed as learn(4) calls that each take 4
// env steps and 64 gradient steps from a replay buffer filled first (so the env and the
// round's bookkeeping are in the figure, at 1/16 of a gradient step each).
// Each figure is the median of `--repeats` timed runs of `--seconds`, one thread.
#include <torch/torch.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "apps/cli_checks.h"
#include "apps/bench/bench_util.h"
#include "apps/bench/learner_updates.h"
#include "apps/bench/sgemm_peak.h"
#include "apps/commands.h"
#include "core/torch/threads.h"
#include "algorithms/builtin.h"
#include "envs/builtin.h"
#include "rl/agent.h"
#include "rl/nets/gemm.h"

namespace rlzoo::cli {

namespace {

struct LearnerBenchOptions {
  double seconds = 1.0;
  int repeats = 5;
  std::vector<std::int64_t> widths = {64, 256};
  std::vector<std::string> parts = {"ppo", "dqn", "sac", "td3", "gemm"};
  bool baseline = true;
  bool has(const std::string& part) const { return std::find(parts.begin(), parts.end(), part) != parts.end(); }
};

// One linear layer's matrix product shapes: batch rows, in and out features, and whether its
// input gradient is needed (not for the first layer, whose input is the observation).
struct GemmShape {
  std::int64_t batch, in, out;
  bool input_grad;
  bool backward = true;     // false: forward only (a target network)
  bool weight_grad = true;  // false: the input's gradient only (a critic under the actor's loss)
};

double gemm_flops(const std::vector<GemmShape>& shapes) {
  double f = 0;
  for (const auto& s : shapes) {
    const double one = 2.0 * static_cast<double>(s.batch * s.in * s.out);
    f += one * (1 + (s.backward ? (s.weight_grad ? 1 : 0) + (s.input_grad ? 1 : 0) : 0));
  }
  return f;
}

// The layers of an MLP in -> hidden... -> out at `batch`.
void add_mlp(std::vector<GemmShape>& shapes, std::int64_t batch, std::int64_t in, const std::vector<std::int64_t>& hidden,
             std::int64_t out, bool backward) {
  std::int64_t prev = in;
  bool first = true;
  for (auto h : hidden) {
    shapes.push_back({batch, prev, h, !first, backward});
    prev = h;
    first = false;
  }
  shapes.push_back({batch, prev, out, true, backward});
}

// A critic on [observation, action] rows under the actor's loss: forward, then the gradient
// back to its input (the action's part) without its own weights' gradients.
void add_mlp_to_input(std::vector<GemmShape>& shapes, std::int64_t batch, std::int64_t in,
                      const std::vector<std::int64_t>& hidden, std::int64_t out) {
  const auto first = shapes.size();
  add_mlp(shapes, batch, in, hidden, out, true);
  for (auto i = first; i < shapes.size(); ++i) {
    shapes[i].input_grad = true;
    shapes[i].weight_grad = false;
  }
}

// Buffers for one shape, and its products in row-major terms: Y = X W^T, dW = dY^T X, dX = dY W.
struct GemmBuffers {
  GemmShape s;
  std::vector<float> x, w, y, dy, dw, dx;
  explicit GemmBuffers(const GemmShape& shape)
      : s(shape), x(s.batch * s.in, 0.5f), w(s.out * s.in, 0.25f), y(s.batch * s.out), dy(s.batch * s.out, 0.1f),
        dw(s.out * s.in), dx(s.batch * s.in) {}
};

void blas_products(std::vector<GemmBuffers>& bufs) {
  for (auto& b : bufs) {
    const auto [n, in, out, input_grad, backward, weight_grad] = b.s;
    sgemm(Trans::No, Trans::Yes, n, out, in, 1.0f, b.x.data(), in, b.w.data(), in, 0.0f, b.y.data(), out);
    if (!backward) continue;
    if (weight_grad)
      sgemm(Trans::Yes, Trans::No, out, in, n, 1.0f, b.dy.data(), out, b.x.data(), in, 0.0f, b.dw.data(), in);
    if (input_grad) sgemm(Trans::No, Trans::No, n, in, out, 1.0f, b.dy.data(), out, b.w.data(), in, 0.0f, b.dx.data(), in);
  }
}

void plain_products(std::vector<GemmBuffers>& bufs) {
  for (auto& b : bufs) {
    const auto [n, in, out, input_grad, backward, weight_grad] = b.s;
    for (std::int64_t r = 0; r < n; ++r)
      for (std::int64_t o = 0; o < out; ++o) {
        float acc = 0;
        for (std::int64_t i = 0; i < in; ++i) acc += b.x[r * in + i] * b.w[o * in + i];
        b.y[r * out + o] = acc;
      }
    if (!backward) continue;
    std::fill(b.dw.begin(), b.dw.end(), 0.0f);
    for (std::int64_t r = 0; r < n && weight_grad; ++r)
      for (std::int64_t o = 0; o < out; ++o) {
        const float g = b.dy[r * out + o];
        for (std::int64_t i = 0; i < in; ++i) b.dw[o * in + i] += g * b.x[r * in + i];
      }
    if (!input_grad) continue;
    std::fill(b.dx.begin(), b.dx.end(), 0.0f);
    for (std::int64_t r = 0; r < n; ++r)
      for (std::int64_t o = 0; o < out; ++o) {
        const float g = b.dy[r * out + o];
        for (std::int64_t i = 0; i < in; ++i) b.dx[r * in + i] += g * b.w[o * in + i];
      }
  }
}

// Times the shapes' products through BLAS and as plain loops; prints both with their GFLOP/s.
void print_gemm_lines(const std::string& name, const std::vector<GemmShape>& shapes, const LearnerBenchOptions& o,
                      double peak) {
  if (!o.has("gemm")) return;
  std::vector<GemmBuffers> bufs(shapes.begin(), shapes.end());
  const double flops = gemm_flops(shapes);
  const double blas_rate = median_rate([&] { blas_products(bufs); }, 1.0, o.seconds, o.repeats);
  print_bench_line(name + "/gemm_same_shapes", blas_rate * flops / 1e9, "GFLOP/s", nullptr,
                   {{"calls_per_s", blas_rate}, {"fraction_of_peak", blas_rate * flops / 1e9 / peak}});
  const double plain_rate = median_rate([&] { plain_products(bufs); }, 1.0, o.seconds, o.repeats);
  print_bench_line(name + "/plain_cpp_gemm", plain_rate * flops / 1e9, "GFLOP/s", nullptr,
                   {{"calls_per_s", plain_rate}, {"fraction_of_peak", plain_rate * flops / 1e9 / peak}});
}

double sgemm_peak(const LearnerBenchOptions& o) {
  const double gflops = sgemm_peak_gflops(o.seconds, o.repeats);
  print_bench_line("learner/sgemm_peak", gflops, "GFLOP/s", nullptr, {{"shape", "512x512x512"}, {"threads", 1}});
  return gflops;
}

// Updates per second of `Update` on rlzoo's path (fused) or LibTorch's.
template <class Update>
double update_rate(std::int64_t width, const LearnerBenchOptions& o, bool fused) {
  Update update(width, fused);
  return median_rate([&] { update.step(); }, 1.0, o.seconds, o.repeats);
}

// One update's lines: its rate beside LibTorch's, its GFLOP/s, and the bare products. Its
// networks: one 4 -> width -> width -> 2 with a backward pass, and a second one to
// `second_out` outputs (PPO's critic, backward; DQN's target network, forward only).
template <class Update>
void bench_update(const std::string& algo, std::int64_t width, std::int64_t second_out, bool second_backward,
                  const LearnerBenchOptions& o, double peak) {
  const double rate = update_rate<Update>(width, o, true);
  const double baseline = o.baseline ? update_rate<Update>(width, o, false) : std::nan("");
  const std::vector<std::int64_t> hidden{width, width};
  std::vector<GemmShape> shapes;
  add_mlp(shapes, Update::kBatch, 4, hidden, 2, true);
  add_mlp(shapes, Update::kBatch, 4, hidden, second_out, second_backward);
  const double gflops = rate * gemm_flops(shapes) / 1e9;
  const std::string name = fmt::format("learner/{0}_{1}x{1}", algo, width);
  print_bench_line(name + "/updates_per_s", rate, "updates/s", baseline,
                   {{"batch", Update::kBatch}, {"us_per_update", 1e6 / rate}, {"gflops", gflops},
                    {"fraction_of_peak", gflops / peak}, {"speedup_vs_baseline", rate / baseline},
                    {"baseline_is", "LibTorch modules, torch::optim::Adam and the losses as LibTorch operations"}});
  print_gemm_lines(name, shapes, o, peak);
}

// SAC's or TD3's gradient steps through the agent's learn() (see the header comment), with the
// products of one step: Pendulum's 3 observations and 1 action.
void bench_off_policy(const std::string& algo, std::int64_t width, const LearnerBenchOptions& o, double peak) {
  constexpr std::int64_t kBatch = 256, kSteps = 4, kGradientSteps = 64, kFilled = 1024;
  register_builtin_envs();
  register_builtin_algorithms();
  auto agent = make_agent(algo, "Pendulum-v1",
                          {"seed=0", "torch_threads=1", fmt::format("hyperparams.policy.hidden=[{0}, {0}]", width),
                           fmt::format("hyperparams.batch_size={}", kBatch),
                           fmt::format("hyperparams.learning_starts={}", kFilled),
                           fmt::format("hyperparams.train_freq={}", kSteps),
                           fmt::format("hyperparams.gradient_steps={}", kGradientSteps)});
  agent->set_progress_bar(false);
  agent->learn(kFilled);  // random actions into the buffer, no gradient step yet
  const double calls = median_rate([&] { agent->learn(kSteps); }, 1.0, o.seconds, o.repeats);
  const double rate = calls * kGradientSteps;
  const std::vector<std::int64_t> hidden{width, width};
  std::vector<GemmShape> shapes;
  if (algo == "sac") {
    add_mlp(shapes, kBatch, 3, hidden, 2, true);   // the actor on the batch (mean, log-std)
    add_mlp(shapes, kBatch, 3, hidden, 2, false);  // the actor on the next observations
    for (int i = 0; i < 2; ++i) {
      add_mlp(shapes, kBatch, 4, hidden, 1, true);   // each critic's loss
      add_mlp(shapes, kBatch, 4, hidden, 1, false);  // each target critic
      add_mlp_to_input(shapes, kBatch, 4, hidden, 1);  // each critic in the actor's loss
    }
  } else {  // td3: per step the target actor and critics, the critics' loss; every 2nd the actor
    add_mlp(shapes, kBatch, 3, hidden, 1, false);
    for (int i = 0; i < 2; ++i) {
      add_mlp(shapes, kBatch, 4, hidden, 1, false);
      add_mlp(shapes, kBatch, 4, hidden, 1, true);
    }
    std::vector<GemmShape> actor;
    add_mlp(actor, kBatch, 3, hidden, 1, true);
    add_mlp_to_input(actor, kBatch, 4, hidden, 1);  // the first critic in the actor's loss
    for (auto s : actor) {
      s.batch /= 2;  // half of the steps, as half the rows
      shapes.push_back(s);
    }
  }
  const double gflops = rate * gemm_flops(shapes) / 1e9;
  const std::string name = fmt::format("learner/{0}_{1}x{1}", algo, width);
  print_bench_line(name + "/updates_per_s", rate, "updates/s", nullptr,
                   {{"batch", kBatch}, {"us_per_update", 1e6 / rate}, {"gflops", gflops},
                    {"fraction_of_peak", gflops / peak},
                    {"path", fmt::format("{}'s learn(): {} env steps and {} gradient steps a call", algo, kSteps,
                                         kGradientSteps)}});
  print_gemm_lines(name, shapes, o, peak);
}

}  // namespace

void add_learner_bench_command(CLI::App& bench) {
  auto* cmd = bench.add_subcommand(
      "learner", "PPO, DQN, SAC and TD3 update rates and GFLOP/s on small networks, beside the sgemm peak and bare GEMMs");
  auto o = std::make_shared<LearnerBenchOptions>();
  cmd->add_option("--seconds", o->seconds, "Seconds per timed run")->check(positive());
  cmd->add_option("--repeats", o->repeats, "Timed runs per figure (the median is printed)")->check(positive());
  cmd->add_option("--widths", o->widths, "Hidden widths (two layers of each)")->check(positive());
  cmd->add_option("--parts", o->parts, "What to measure: ppo, dqn, sac, td3, gemm (the bare products beside each update)")
      ->check(CLI::IsMember({"ppo", "dqn", "sac", "td3", "gemm"}));
  cmd->add_flag("--baseline,!--no-baseline", o->baseline,
                 "Also time the LibTorch-modules baseline of each update (default: yes)");
  cmd->callback([o] {
    configure_threads(1, 1);
    const double peak = sgemm_peak(*o);
    for (auto w : o->widths) {
      if (o->has("ppo")) bench_update<bench::PpoUpdate>("ppo", w, 1, true, *o, peak);
      if (o->has("dqn")) bench_update<bench::DqnUpdate>("dqn", w, 2, false, *o, peak);
      for (const char* algo : {"sac", "td3"})
        if (o->has(algo)) bench_off_policy(algo, w, *o, peak);
    }
  });
}

}  // namespace rlzoo::cli
