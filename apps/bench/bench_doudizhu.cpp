// `rlzoo bench doudizhu`: the DouDizhu engine and DMC against DouZero's Python implementation.
//
// Reference figures (DouZero's code on this kind of machine, one thread, OpenBLAS; from the
// issue, not measured here): legal-move generation for a fresh 20-card landlord hand 28k
// calls/s, for mid-game responses 161k calls/s; random self-play 241 games/s (14.7k
// decisions/s); actor decisions with the real networks 703/s; DMC training with 2 actors on 2
// cores about 1,100 frames/s.
//
// Measured here, each beside a baseline from the same run where one exists:
//  * legal moves for fresh landlord hands and for responses drawn from random games;
//  * random self-play (one thread);
//  * actor decisions/s with the real networks, one thread, epsilon-greedy self-play over many
//    concurrent games evaluated in one factorised pass per seat (DecisionBatch), beside
//    DouZero's way (the whole network over every legal action, one decision at a time) on the
//    same positions, timed in alternation with it; with the GFLOP/s each achieves (the
//    factorised way's FLOPs as its CPU path performs them: a sparse input's by its nonzeros);
//  * one learner step of the preset's shape (B x T frames of a peasant seat from random games), one
//    thread, with its GFLOP/s beside the one-thread sgemm peak;
//  * end-to-end DMC training frames/s with the shipped preset (2 actors, each with its own
//    network replica, and the learner), on all cores, beside two ceilings computed in the
//    same run: both cores at the sgemm peak (`ceiling_at_peak`, the yardstick), and
//    both cores always busy at the one-thread acting and learning rates just measured
//    (`ceiling_at_one_thread_rates`).
#include <algorithm>
#include <chrono>
#include <functional>

#include <fmt/format.h>

#include "rl/agent.h"
#include "algorithms/dmc/decision_batch.h"
#include "algorithms/dmc/douzero_inference.h"
#include "algorithms/dmc/dmc.h"
#include "apps/cli_checks.h"
#include "apps/app_paths.h"
#include "apps/bench/bench_util.h"
#include "apps/bench/sgemm_peak.h"
#include "apps/commands.h"
#include "core/torch/threads.h"
#include "envs/doudizhu/encoding.h"
#include "envs/doudizhu/legal_moves.h"

namespace rlzoo::cli {

namespace {

using namespace doudizhu;

struct DouDizhuBenchOptions {
  double seconds = 1.0;
  int repeats = 3;
  int games = 64;
  std::int64_t train_frames = 320'000;
  std::string configs;  // "": presets_dir()
};

nlohmann::json reference(double value) { return {{"reference_douzero_python", value}}; }

// FLOPs of one decision with `actions` candidates the way DouZero evaluates it (multiply-adds
// count 2; every input dense). The factorised way counts its own (DecisionBatch::flops).
constexpr double kLstmFlops = 5.0 * 2 * 512 * (162 + 128);
constexpr double kTailFlops = 4.0 * 2 * 512 * 512 + 2 * 512;  // dense2..5 and dense6
double douzero_flops(Seat s, double actions) {
  return actions * (kLstmFlops + 2.0 * 512 * (128 + state_dim(s) + 54) + kTailFlops);
}

void bench_engine(const DouDizhuBenchOptions& o) {
  Rng rng(1);
  std::vector<CardCounts> leads;
  for (int i = 0; i < 1000; ++i) leads.push_back(Deal::random(rng).hands[0]);
  // Responses: positions with a move to beat, from random games.
  std::vector<std::pair<CardCounts, CardCounts>> responses;
  std::int64_t games = 0;
  while (responses.size() < 20000) {
    Game g(Deal::random(rng));
    ++games;
    while (!g.over()) {
      if (!g.rival_move().empty()) responses.emplace_back(g.hand(g.acting()), g.rival_move());
      g.play_index(rng.below(g.legal_moves().size()));
    }
  }
  std::vector<CardCounts> out;
  std::size_t sink = 0;
  const double lead_rate = median_rate(
      [&] {
        for (CardCounts h : leads) {
          generate_leads(h, out);
          sink += out.size();
        }
      },
      static_cast<double>(leads.size()), o.seconds, o.repeats);
  print_bench_line("doudizhu/legal_moves_fresh_landlord_hand", lead_rate, "calls/s", reference(28'000),
                   {{"speedup_vs_reference", lead_rate / 28'000}});
  const double resp_rate = median_rate(
      [&] {
        for (const auto& [h, r] : responses) {
          generate_legal_moves(h, r, out);
          sink += out.size();
        }
      },
      static_cast<double>(responses.size()), o.seconds, o.repeats);
  print_bench_line("doudizhu/legal_moves_response", resp_rate, "calls/s", reference(161'000),
                   {{"speedup_vs_reference", resp_rate / 161'000}});
  // Random self-play, one thread.
  std::int64_t decisions = 0, played = 0;
  Rng play_rng(2);
  Game g(Deal{});
  const double game_rate = median_rate(
      [&] {
        g.reset(Deal::random(play_rng));
        while (!g.over()) {
          g.play_index(play_rng.below(g.legal_moves().size()));
          ++decisions;
        }
        ++played;
      },
      1.0, o.seconds, o.repeats);
  const double per_game = static_cast<double>(decisions) / static_cast<double>(played);
  print_bench_line("doudizhu/random_selfplay", game_rate, "games/s", reference(241),
                   {{"decisions_per_s", game_rate * per_game},
                    {"speedup_vs_reference", game_rate / 241},
                    {"checksum", sink % 1000}});
}

// What the training line's ceilings take from the one-thread lines. A frame is one decision of
// one seat (forced moves included, which cost no network pass).
struct FrameCosts {
  double act_flops = 0;            // per frame, the factorised way
  double act_frames_per_s = 0;     // one acting thread
  double learn_flops = 0;          // per frame
  double learn_frames_per_s = 0;   // one learning thread
  double sgemm_peak_gflops = 0;
};

// Learner FLOPs per frame (DouZeroNetImpl::forward_sparse and its backward pass) for frames with
// `nonzero_inputs` nonzero features on average. A frame's forward pass is the factorised pass
// of one decision with one candidate; backward, the dense products run twice more (their
// inputs' and their weights' gradients), the sparse inputs' row sums once more (the weights').
double learn_flops_per_frame(double nonzero_inputs) {
  const double dense = dmc::factorised_q_values_flops(1, 1, 0);
  const double sparse = dmc::factorised_q_values_flops(1, 1, 1) - dense;  // per nonzero input
  return 3 * dense + 2 * sparse * nonzero_inputs;
}

// One thread: epsilon-greedy self-play of `games` concurrent games, all three seats.
void bench_actor(const DouDizhuBenchOptions& o, FrameCosts& costs) {
  configure_threads(1, 1);
  dmc::SeatNets nets;  // made outside InferenceMode, as the actors' replicas are
  torch::InferenceMode inference;
  Rng rng(3);
  std::vector<Game> games;
  for (int i = 0; i < o.games; ++i) games.emplace_back(Deal::random(rng));
  dmc::DecisionBatch batch;
  std::vector<std::int64_t> slot(games.size());
  double flops = 0, fast_decisions = 0;
  auto step_all = [&] {
    batch.clear();
    for (std::size_t i = 0; i < games.size(); ++i) {
      slot[i] = -1;
      const auto n = games[i].legal_moves().size();
      if (n > 1) slot[i] = static_cast<std::int64_t>(batch.add(games[i]));
    }
    if (batch.size() > 0) {
      batch.evaluate(nets);
      flops += batch.flops();
    }
    for (std::size_t i = 0; i < games.size(); ++i) {
      std::size_t choice = 0;
      if (slot[i] >= 0)
        choice = rng.uniform() < 0.01 ? rng.below(games[i].legal_moves().size())
                                      : batch.argmax(static_cast<std::size_t>(slot[i]));
      games[i].play_index(choice);
      fast_decisions += 1;
      if (games[i].over()) games[i].reset(Deal::random(rng));
    }
  };
  // DouZero's way on the same kind of positions: one decision at a time, the whole network on
  // (x, a) and z repeated for every legal action.
  double slow_flops = 0;
  std::vector<float> x, z;
  Game* g = &games[0];
  auto douzero_step = [&] {
    const Seat s = g->acting();
    const auto& legal = g->legal_moves();
    std::size_t choice = 0;
    if (legal.size() > 1) {
      const std::int64_t n = static_cast<std::int64_t>(legal.size()), sd = state_dim(s);
      x.assign(static_cast<std::size_t>(n * (sd + kCardDim)), 0.0f);
      z.assign(static_cast<std::size_t>(n * kHistoryDim), 0.0f);
      for (std::int64_t k = 0; k < n; ++k) {
        float* row = x.data() + k * (sd + kCardDim);
        encode_state(*g, s, row);  // DouZero repeats the state per action
        encode_cards(legal[static_cast<std::size_t>(k)], row + sd);
        encode_history(*g, z.data() + k * kHistoryDim);
      }
      const auto q = nets[s].forward(torch::from_blob(z.data(), {n, kHistoryRows, kHistoryRowDim}),
                                     torch::from_blob(x.data(), {n, sd + kCardDim}));
      choice = static_cast<std::size_t>(q.argmax().item<std::int64_t>());
      slow_flops += douzero_flops(s, static_cast<double>(n));
    }
    g->play_index(choice);
    if (g->over()) g->reset(Deal::random(rng));
  };
  // Timed in alternation, the speedup the median of the per-repeat ratios: timed one after the
  // other, the ratio moved with the machine's speed between the two (5.25-7.87 in four runs of
  // one day). FLOP rates over each side's whole timed time (its warm-up call included).
  double fast_seconds = 0, slow_seconds = 0;
  const auto timed = [](const std::function<void()>& f, double& seconds) {
    return [&f, &seconds] {
      const auto t = std::chrono::steady_clock::now();
      f();
      seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
    };
  };
  const std::function<void()> fast = step_all, slow = douzero_step;
  const PairedRates p = paired_median_rates(timed(fast, fast_seconds), static_cast<double>(games.size()),
                                            timed(slow, slow_seconds), 1.0, o.seconds, o.repeats);
  const double rate = p.rate, slow_rate = p.baseline_rate;
  const double fast_gflops = flops / fast_seconds / 1e9, slow_gflops = slow_flops / slow_seconds / 1e9;
  print_bench_line("doudizhu/actor_decisions_1_thread", rate, "decisions/s",
                   {{"douzero_way_measured", slow_rate}, {"reference_douzero_python", 703}},
                   {{"speedup_vs_douzero_way", p.ratio},
                    {"speedup_vs_reference", rate / 703},
                    {"concurrent_games", o.games},
                    {"gflops", fast_gflops},
                    {"douzero_way_gflops", slow_gflops}});
  costs.act_flops = flops / fast_decisions;
  costs.act_frames_per_s = rate;
}

// One learner step (DmcAgent::train_step) of the preset's B x T frames for a peasant seat, one
// thread: the seat's frames from random games (its features as sparse as in training), +-1
// targets; then the one-thread sgemm peak.
void bench_learner_step(const DouDizhuBenchOptions& o, FrameCosts& costs) {
  const std::string configs = o.configs.empty() ? presets_dir().string() : o.configs;
  auto agent = Agent::from_preset(configs + "/dmc/DouDizhu-v0.yaml", {"hyperparams.eval_every=0"});
  auto& dmc = dynamic_cast<dmc::DmcAgent&>(*agent);
  configure_threads(1, 1);
  const Seat seat = Seat::LandlordDown;
  const std::int64_t n = dmc.hyperparams().frames_per_step(), sd = state_dim(seat);
  dmc::SeatFrames frames;
  frames.x.resize(static_cast<std::size_t>(n * sd));
  frames.a.resize(static_cast<std::size_t>(n * kCardDim));
  frames.z.resize(static_cast<std::size_t>(n * kHistoryDim));
  frames.target.resize(static_cast<std::size_t>(n));
  Rng rng(5);
  Game g(Deal::random(rng));
  for (std::int64_t f = 0; f < n;) {
    const std::size_t move = rng.below(g.legal_moves().size());
    if (g.acting() == seat) {
      const auto i = static_cast<std::size_t>(f++);
      encode_state(g, seat, frames.x.data() + i * static_cast<std::size_t>(sd));
      encode_history(g, frames.z.data() + i * kHistoryDim);
      encode_cards(g.legal_moves()[move], frames.a.data() + i * kCardDim);
      frames.target[i] = rng.below(2) ? 1.0f : -1.0f;
    }
    g.play_index(move);
    if (g.over()) g.reset(Deal::random(rng));
  }
  double nonzero = 0;
  for (const auto* bytes : {&frames.x, &frames.a, &frames.z})
    nonzero += static_cast<double>(std::count_if(bytes->begin(), bytes->end(), [](std::uint8_t b) { return b != 0; }));
  const double rate = median_rate([&] { dmc.train_step(seat, frames); }, static_cast<double>(n), o.seconds, o.repeats);
  costs.learn_flops = learn_flops_per_frame(nonzero / static_cast<double>(n));
  costs.learn_frames_per_s = rate;
  costs.sgemm_peak_gflops = sgemm_peak_gflops(o.seconds, o.repeats);
  const double gflops = rate * costs.learn_flops / 1e9;
  print_bench_line("doudizhu/learner_frames_1_thread", rate, "frames/s", nullptr,
                   {{"frames_per_step", n},
                    {"gflops", gflops},
                    {"sgemm_peak_gflops", costs.sgemm_peak_gflops},
                    {"fraction_of_peak", gflops / costs.sgemm_peak_gflops}});
}

void bench_training(const DouDizhuBenchOptions& o, const FrameCosts& costs) {
  const std::string configs = o.configs.empty() ? presets_dir().string() : o.configs;
  auto agent = Agent::from_preset(configs + "/dmc/DouDizhu-v0.yaml",
                                  {fmt::format("n_timesteps={}", o.train_frames), "hyperparams.eval_every=0"});
  agent->set_progress_bar(false);
  // A short warm-up so that thread start and the first batches do not count.
  agent->learn(3200 * 3);
  const auto start = std::chrono::steady_clock::now();
  agent->learn(o.train_frames);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double rate = static_cast<double>(o.train_frames) / seconds;
  const RuntimeConfig& runtime = agent->preset().runtime;
  // Both cores at the sgemm peak, every frame acted and learnt once; and both cores always busy
  // at the one-thread rates (the work of a frame split between them at will).
  const double ceiling = 2.0 * costs.sgemm_peak_gflops * 1e9 / (costs.act_flops + costs.learn_flops);
  const double busy_ceiling = 2.0 / (1.0 / costs.act_frames_per_s + 1.0 / costs.learn_frames_per_s);
  print_bench_line("doudizhu/train_frames", rate, "frames/s", reference(1'100),
                   {{"speedup_vs_reference", rate / 1'100},
                    {"frames", o.train_frames},
                    {"seconds", seconds},
                    {"learner_gflops", rate * costs.learn_flops / 1e9},
                    {"acting_mflop_per_frame", costs.act_flops / 1e6},
                    {"learning_mflop_per_frame", costs.learn_flops / 1e6},
                    {"ceiling_at_peak", ceiling},
                    {"fraction_of_ceiling_at_peak", rate / ceiling},
                    {"ceiling_at_one_thread_rates", busy_ceiling},
                    {"fraction_of_ceiling_at_one_thread_rates", rate / busy_ceiling},
                    {"setup", fmt::format("configs/dmc/DouDizhu-v0.yaml: {} actors x {} games, {}, actor_nice {}, "
                                          "1 learner",
                                          runtime.actors, runtime.envs_per_actor,
                                          runtime.inference.max_batch > 0 ? "shared inference server"
                                                                          : "a network replica per actor",
                                          runtime.actor_nice)}});
}

}  // namespace

void add_doudizhu_bench_command(CLI::App& bench) {
  auto* cmd = bench.add_subcommand("doudizhu", "DouDizhu engine, actor and DMC training throughput vs DouZero");
  auto o = std::make_shared<DouDizhuBenchOptions>();
  cmd->add_option("--seconds", o->seconds, "Seconds per timed repeat")->check(positive());
  cmd->add_option("--repeats", o->repeats, "Timed repeats (the median is printed)")->check(positive());
  cmd->add_option("--games", o->games, "Concurrent games of the actor benchmark")->check(positive());
  cmd->add_option("--train-frames", o->train_frames, "Frames of the timed training run (0: skip)")
      ->check(non_negative());
  cmd->add_option("--configs", o->configs, "Presets directory (default: the shipped presets)");
  cmd->callback([o] {
    bench_engine(*o);
    FrameCosts costs;
    bench_actor(*o, costs);
    if (o->train_frames <= 0) return;
    bench_learner_step(*o, costs);
    bench_training(*o, costs);
  });
}

}  // namespace rlzoo::cli
