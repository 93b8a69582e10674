// `rlzoo bench secbad`: SeCBAD's training speed on its grid world (against PPO on the same code
// and settings, belief_ppo, as the baseline; VariBAD alongside), and the cost of belief inference
// per step against the episode length, with the posterior's pruning and without it (the
// baseline): without pruning every step adds a hypothesis, so the cost grows with t; pruned, the
// number of live hypotheses stays bounded by what the segment-length prior allows.
#include <algorithm>
#include <chrono>
#include <fmt/format.h>

#include "rl/agent.h"
#include "algorithms/secbad/belief_tracker.h"
#include "apps/bench/bench_util.h"
#include "apps/commands.h"
#include "core/common/rng.h"
#include "envs/contexts/piecewise_context.h"

namespace rlzoo::cli {

namespace {

struct SecbadBenchOptions {
  std::string configs = "configs";
  double seconds = 10;
  int repeats = 3;
};

double train_rate(const std::string& preset, const SecbadBenchOptions& o) {
  auto agent = Agent::from_preset(preset, {"hyperparams.vae.pretrain_frames=0"});
  agent->set_progress_bar(false);
  const std::int64_t iteration = 16 * 60;  // one rollout of the grid presets
  agent->learn(5 * iteration);              // the VAE buffer fills, the VAE starts updating
  return median_rate([&] { agent->learn(5 * iteration); }, 5.0 * iteration, o.seconds, o.repeats);
}

double ppo_rate(const std::string& preset, const SecbadBenchOptions& o) {
  auto agent = Agent::from_preset(preset);
  agent->set_progress_bar(false);
  const std::int64_t iteration = 16 * 60;
  return median_rate([&] { agent->learn(5 * iteration); }, 5.0 * iteration, o.seconds, o.repeats);
}

// Microseconds per inference step over an episode of `length` steps (rewards whose level jumps
// at segment changes), and the live hypotheses at its end.
std::pair<double, double> inference_cost(std::int64_t length, double prune_below) {
  torch::NoGradGuard no_grad;
  torch::manual_seed(0);
  secbad::SecbadConfig cfg;
  cfg.prune_below = prune_below;
  secbad::BeliefEncoder enc(2, 5, cfg.vae);
  secbad::RewardDecoder dec(enc, cfg.vae.reward_decoder);
  SegmentConfig seg;
  seg.mean = 15;
  seg.std = 5;
  seg.min = 3;
  Rng rng(7);
  const auto prior = secbad::SegmentPrior::estimate(seg, length, rng, 2000);
  secbad::BeliefTracker tracker(enc, dec, cfg, prior, 1, secbad::Segmentation::inferred);
  std::vector<torch::Tensor> states, actions;
  std::vector<double> rewards;
  double level = 0;
  for (std::int64_t t = 0, left = 0; t <= length; ++t, --left) {
    if (left <= 0) left = seg.sample(rng), level = rng.normal();
    states.push_back(torch::rand({2}) * 4);
    actions.push_back(torch::one_hot(torch::tensor(t % 5), 5).to(torch::kFloat32));
    rewards.push_back(level + 0.1 * rng.normal());
  }
  const auto start = std::chrono::steady_clock::now();
  for (std::int64_t t = 1; t <= length; ++t)
    tracker.observe(0, actions[static_cast<std::size_t>(t - 1)], states[static_cast<std::size_t>(t - 1)],
                    states[static_cast<std::size_t>(t)], rewards[static_cast<std::size_t>(t)], false);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return {1e6 * s / static_cast<double>(length), static_cast<double>(tracker.hypotheses(0))};
}

void run(const SecbadBenchOptions& o) {
  const std::string env = "SecbadGrid-v0";
  const double ppo = ppo_rate(fmt::format("{}/belief_ppo/{}.yaml", o.configs, env), o);
  print_bench_line("secbad/belief_ppo/" + env + "/train_steps_per_s", ppo, "env-steps/s", nullptr,
                   {{"note", "PPO on the state alone, same code and settings: the baseline"}});
  for (const char* algo : {"secbad", "varibad"}) {
    const double r = train_rate(fmt::format("{}/{}/{}.yaml", o.configs, algo, env), o);
    print_bench_line(fmt::format("secbad/{}/{}/train_steps_per_s", algo, env), r, "env-steps/s", ppo,
                     {{"ratio_to_baseline", r / ppo}});
  }
  for (std::int64_t length : {50, 100, 200, 400, 800}) {
    // Medians of 3 episodes each way.
    std::vector<double> pruned, full;
    double h_pruned = 0, h_full = 0;
    for (int k = 0; k < 3; ++k) {
      auto [us, h] = inference_cost(length, 1e-8);
      auto [us_full, hf] = inference_cost(length, 0.0);
      pruned.push_back(us), full.push_back(us_full), h_pruned = h, h_full = hf;
    }
    std::sort(pruned.begin(), pruned.end());
    std::sort(full.begin(), full.end());
    print_bench_line(fmt::format("secbad/inference/episode_{}/us_per_step", length), pruned[1], "us/step", full[1],
                     {{"live_hypotheses", h_pruned},
                      {"live_hypotheses_baseline", h_full},
                      {"note", "baseline: no pruning"}});
  }
}

}  // namespace

void add_secbad_bench_command(CLI::App& bench) {
  auto o = std::make_shared<SecbadBenchOptions>();
  auto* cmd = bench.add_subcommand("secbad", "SeCBAD training speed and belief-inference cost against episode length");
  cmd->add_option("--configs", o->configs, "Folder of the presets (configs/<algo>/SecbadGrid-v0.yaml)");
  cmd->add_option("--seconds", o->seconds, "Seconds per timing repeat");
  cmd->add_option("--repeats", o->repeats, "Timing repeats (the median is printed)");
  cmd->callback([o] { run(*o); });
}

}  // namespace rlzoo::cli
