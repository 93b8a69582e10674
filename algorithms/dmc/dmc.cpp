#include "algorithms/dmc/dmc.h"

#include <chrono>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "rl/agent_checkpoint.h"
#include "rl/epsilon_greedy.h"
#include "rl/gradient_guard.h"
#include "rl/learner_device.h"
#include "rl/training_run.h"
#include "algorithms/dmc/decision_batch.h"
#include "algorithms/dmc/dmc_actor.h"
#include "algorithms/dmc/dmc_player.h"
#include "core/platform/thread_priority.h"
#include "core/runtime/batching_server.h"
#include "core/runtime/parameter_store.h"
#include "core/runtime/stop.h"
#include "core/runtime/thread_group.h"
#include "core/torch/module_parameters.h"
#include "core/torch/tensor_io.h"
#include "envs/doudizhu/doudizhu_env.h"
#include "envs/doudizhu/evaluation.h"
#include "envs/doudizhu/random_player.h"
#include "envs/doudizhu/rule_player.h"

namespace rlzoo::dmc {

using namespace doudizhu;

namespace {

std::string seat_blob(Seat s, const char* suffix) { return fmt::format("{}{}", seat_name(s), suffix); }

// Keeps the frames after the first n.
void drop_front(SeatFrames& f, std::int64_t n, std::int64_t x_dim) {
  const auto m = static_cast<std::size_t>(n);
  f.x.erase(f.x.begin(), f.x.begin() + static_cast<std::ptrdiff_t>(m * static_cast<std::size_t>(x_dim)));
  f.a.erase(f.a.begin(), f.a.begin() + static_cast<std::ptrdiff_t>(m * kCardDim));
  f.z.erase(f.z.begin(), f.z.begin() + static_cast<std::ptrdiff_t>(m * kHistoryDim));
  f.target.erase(f.target.begin(), f.target.begin() + static_cast<std::ptrdiff_t>(m));
}

// Replicas of the learner's networks that copy in new weights when a seat's version changes.
struct Replica {
  SeatNets nets;
  std::array<std::unique_ptr<ParameterClient<ParameterSnapshot>>, 3> clients;

  Replica(const SeatNets& from, std::array<ModuleParameterStore, 3>& stores) : nets(from.clone()) {
    for (std::size_t i = 0; i < 3; ++i) clients[i] = std::make_unique<ParameterClient<ParameterSnapshot>>(stores[i]);
  }
  void refresh() {
    for (std::size_t i = 0; i < 3; ++i)
      if (clients[i]->refresh()) load_snapshot(*nets.nets[i], *clients[i]->snapshot());
  }
};

}  // namespace

DmcAgent::DmcAgent(const AgentSetup& setup)
    : Agent(setup),
      cfg_(parse_config<DmcConfig>(setup.preset.hyperparams, setup.ctx.child("hyperparams"))),
      spec_(preset_env_spec(setup)) {
  if (spec_.id != DouDizhuEnv::kId)
    setup.ctx.child("env").fail(YAML::Node(spec_.id), fmt::format("dmc plays {} only", DouDizhuEnv::kId));
  device_ = learner_device(setup);
  torch::manual_seed(static_cast<std::uint64_t>(setup.preset.seed));
  nets_ = std::make_shared<SeatNets>();  // on the CPU, then moved: the same weights on any device
  for (Seat s : kSeats) (*nets_)[s].to(device_);
  for (Seat s : kSeats)
    optimizers_[static_cast<std::size_t>(seat_index(s))] = std::make_unique<torch::optim::RMSprop>(
        (*nets_)[s].parameters(), torch::optim::RMSpropOptions(cfg_.learning_rate)
                                      .alpha(cfg_.alpha)
                                      .eps(cfg_.epsilon)
                                      .momentum(cfg_.momentum));
  next_eval_ = cfg_.eval_every;
  act_rng_ = Rng(derive_seed(static_cast<std::uint64_t>(setup.preset.seed), 0xac7));
}

YAML::Node DmcAgent::resolved_hyperparams() const { return to_yaml(cfg_); }

std::vector<torch::Tensor> DmcAgent::learner_parameters() {
  std::vector<torch::Tensor> params;
  for (Seat s : kSeats)
    for (const auto& p : (*nets_)[s].parameters()) params.push_back(p);
  return params;
}

torch::Tensor DmcAgent::act(const std::vector<torch::Tensor>& obs, const ActOptions& options) {
  if (!options.candidate_features.defined() || !options.acting_agent.defined())
    throw UserError("dmc: act() chooses among DouDizhu's candidate moves: pass ActOptions::candidate_features (the "
                    "env's candidates()) and acting_agent (info().acting_agent); or play through "
                    "`rlzoo doudizhu eval` / `rlzoo doudizhu play` or dmc::DmcAgent::player()");
  const auto x = obs.at(0).to(torch::kUInt8).contiguous();
  const std::int64_t rows = x.size(0);
  if (x.dim() != 2 || x.size(1) != DouDizhuEnv::kObservationSize)
    throw UserError(fmt::format("dmc: act() takes DouDizhu observations [B, {}], got {}",
                                DouDizhuEnv::kObservationSize, c10::str(x.sizes())));
  const auto features = options.candidate_features.to(torch::kUInt8).contiguous();
  if (features.dim() != 3 || features.size(0) != rows || features.size(2) != kCardDim)
    throw UserError(fmt::format("dmc: candidate_features must be [{}, K, {}], got {}", rows, kCardDim,
                                c10::str(features.sizes())));
  const std::int64_t k_max = features.size(1);
  const auto counts = options.candidate_counts.defined() ? options.candidate_counts.to(torch::kInt64).contiguous()
                                                         : torch::full({rows}, k_max, torch::kInt64);
  const auto seats = options.acting_agent.to(torch::kInt64).contiguous();
  DecisionBatch batch;
  for (std::int64_t b = 0; b < rows; ++b) {
    const std::int64_t count = counts[b].item<std::int64_t>(), seat = seats[b].item<std::int64_t>();
    if (count < 1 || count > k_max) throw UserError(fmt::format("dmc: candidate_counts[{}] = {} (1..{})", b, count, k_max));
    if (seat < 0 || seat > 2) throw UserError(fmt::format("dmc: acting_agent[{}] = {} (0..2)", b, seat));
    const std::uint8_t* o = x[b].data_ptr<std::uint8_t>();
    batch.add_encoded(kSeats[static_cast<std::size_t>(seat)], o, o + kMaxStateDim, features[b].data_ptr<std::uint8_t>(),
                      count, kCardDim);
  }
  batch.evaluate(*nets_);
  auto actions = torch::empty({rows}, torch::kInt64);
  for (std::int64_t b = 0; b < rows; ++b) {
    const std::int64_t n = batch.candidates(static_cast<std::size_t>(b));
    const std::int64_t explored = options.deterministic ? -1 : epsilon_explore(act_rng_, cfg_.exp_epsilon, n);
    actions[b] = explored >= 0 ? explored : static_cast<std::int64_t>(batch.argmax(static_cast<std::size_t>(b)));
  }
  return actions;
}

std::unique_ptr<Player> DmcAgent::player() { return std::make_unique<DmcPlayer>(nets_, "dmc"); }

EvalResult DmcAgent::evaluate(int episodes, bool, std::uint64_t seed, const EvalObserver&) {
  auto me = player();
  RandomPlayer random(seed);
  const auto r = evaluate_matchup(*me, random, {.deals = episodes, .seed = seed, .swap = true});
  EvalResult out;
  out.returns = r.a_scores;
  out.lengths.assign(out.returns.size(), 0);
  return out;
}

double DmcAgent::train_step(Seat seat, const SeatFrames& frames) {
  const std::int64_t n = cfg_.frames_per_step(), sd = state_dim(seat);
  RLZOO_CHECK(frames.size() >= n, "train_step needs B x T frames");
  auto& net = (*nets_)[seat];
  auto& opt = *optimizers_[static_cast<std::size_t>(seat_index(seat))];
  const auto x = torch::cat({torch::from_blob(const_cast<std::uint8_t*>(frames.x.data()), {n, sd}, torch::kUInt8),
                             torch::from_blob(const_cast<std::uint8_t*>(frames.a.data()), {n, kCardDim}, torch::kUInt8)},
                            1)
                     .to(device_, torch::kFloat32);
  const auto z = torch::from_blob(const_cast<std::uint8_t*>(frames.z.data()), {n, kHistoryRows, kHistoryRowDim},
                                  torch::kUInt8)
                     .to(device_, torch::kFloat32);
  const auto target = torch::from_blob(const_cast<float*>(frames.target.data()), {n}, torch::kFloat32).to(device_);
  const auto loss = torch::mse_loss(net.forward_sparse(z, x), target);
  opt.zero_grad();
  loss.backward();
  gradient_reducer().reduce(net.parameters());
  clip_and_check_gradients(net.parameters(), cfg_.max_grad_norm, loss, {"DouZero update", frames_ / n + 1, frames_});
  opt.step();
  return loss.item<double>();
}

void DmcAgent::evaluate_against_baselines(TrainingMonitor& monitor) {
  const auto start = std::chrono::steady_clock::now();
  auto me = player();
  RandomPlayer random(7);
  RulePlayer rule;
  const MatchupOptions opt{.deals = cfg_.eval_deals, .seed = 20211, .swap = true};
  const auto vs_random = evaluate_matchup(*me, random, opt);
  const auto vs_rule = evaluate_matchup(*me, rule, opt);
  nlohmann::json j{{"frames", frames_},
                   {"games", games_},
                   {"deals", cfg_.eval_deals},
                   {"wp_landlord_vs_random", vs_random.a_as_landlord.wp},
                   {"wp_peasants_vs_random", vs_random.a_as_peasants->wp},
                   {"adp_landlord_vs_random", vs_random.a_as_landlord.adp},
                   {"adp_peasants_vs_random", vs_random.a_as_peasants->adp},
                   {"wp_landlord_vs_rule", vs_rule.a_as_landlord.wp},
                   {"wp_peasants_vs_rule", vs_rule.a_as_peasants->wp},
                   {"adp_landlord_vs_rule", vs_rule.a_as_landlord.adp},
                   {"adp_peasants_vs_rule", vs_rule.a_as_peasants->adp},
                   {"seconds", std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()}};
  spdlog::info("eval at {} frames: WP vs random {:.3f} as landlord, {:.3f} as peasants; vs rule {:.3f} / {:.3f}",
               frames_, vs_random.a_as_landlord.wp, vs_random.a_as_peasants->wp, vs_rule.a_as_landlord.wp,
               vs_rule.a_as_peasants->wp);
  for (const char* key : {"wp_landlord_vs_random", "wp_peasants_vs_random", "wp_landlord_vs_rule", "wp_peasants_vs_rule"})
    monitor.logger().record(std::string("eval/") + key, j[key].get<double>());
  if (!log_dir().empty()) {
    std::filesystem::create_directories(log_dir());
    std::ofstream(std::filesystem::path(log_dir()) / "eval.jsonl", std::ios::app) << j.dump() << "\n";
  }
}

void DmcAgent::run_training(TrainingRun& run) {
  const RuntimeConfig& rt = preset().runtime;
  const int actors = std::max(1, rt.actors);
  const bool served = rt.inference.max_batch > 0;
  const std::int64_t target = run.target(), per_step = cfg_.frames_per_step();
  TrainingMonitor& monitor = run.monitor();

  std::array<ModuleParameterStore, 3> stores;
  for (std::size_t i = 0; i < 3; ++i) stores[i].publish(snapshot_module(*nets_->nets[i]));
  BoundedQueue<FinishedGame> queue(static_cast<std::size_t>(std::max(8, actors * rt.envs_per_actor)));
  ThreadGroup group;
  group.stop_source().on_stop([&] { queue.close(); });

  // The shared inference server (its replica lives on the server thread), or one replica per actor.
  std::unique_ptr<Replica> server_replica;
  std::unique_ptr<BatchingServer> server;
  std::vector<std::unique_ptr<Replica>> replicas;
  if (served) {
    server_replica = std::make_unique<Replica>(*nets_, stores);
    server = std::make_unique<BatchingServer>(
        kRowBytes, sizeof(float),
        [r = server_replica.get()](ConstBytes in, std::int64_t rows, Bytes out) {
          torch::InferenceMode inference;
          r->refresh();
          evaluate_candidate_rows(r->nets, reinterpret_cast<const std::uint8_t*>(in.data()), rows,
                                  reinterpret_cast<float*>(out.data()));
        },
        BatchingOptions{rt.inference.max_batch, rt.inference.max_wait_us, actors});
    group.stop_source().on_stop([s = server.get()] { s->stop(); });
  } else {
    for (int a = 0; a < actors; ++a) replicas.push_back(std::make_unique<Replica>(*nets_, stores));
  }
  const std::uint64_t round_seed = derive_seed(static_cast<std::uint64_t>(setup().preset.seed), static_cast<std::uint64_t>(games_));
  for (int a = 0; a < actors; ++a) {
    ActorOptions opt{rt.envs_per_actor, cfg_.exp_epsilon, objective_from_name(cfg_.objective),
                     derive_seed(round_seed, static_cast<std::uint64_t>(a))};
    CandidateEvaluator evaluate;
    if (served) {
      evaluate = [s = server.get()](const std::uint8_t* rows, std::int64_t count, float* q) {
        return s->evaluate(ConstBytes(reinterpret_cast<const std::byte*>(rows), static_cast<std::size_t>(count) * kRowBytes),
                           count, Bytes(reinterpret_cast<std::byte*>(q), static_cast<std::size_t>(count) * sizeof(float)));
      };
    } else {
      evaluate = [r = replicas[static_cast<std::size_t>(a)].get()](const std::uint8_t* rows, std::int64_t count, float* q) {
        torch::InferenceMode inference;
        r->refresh();
        evaluate_candidate_rows(r->nets, rows, count, q);
        return true;
      };
    }
    group.spawn(fmt::format("actor-{}", a), [opt, evaluate, &queue, nice = rt.actor_nice](const StopSource& stop) {
      raise_current_thread_nice(nice);
      run_dmc_actor(opt, evaluate, queue, stop);
    });
  }

  std::array<SeatFrames, 3> pending;
  std::vector<double> returns;
  std::vector<std::int64_t> lengths;
  std::array<double, 3> losses{};
  std::int64_t wins = 0, finished = 0;
  bool stop = false;
  try {
    while (frames_ < target && !stop) {
      group.check();
      if (signal_stop_requested()) break;
      auto game = queue.pop_for(std::chrono::milliseconds(100));
      if (!game) continue;
      run.count_actor_batch();
      ++games_;
      ++finished;
      wins += game->landlord_won;
      returns.push_back(game->landlord_return);
      std::int64_t length = 0;
      for (Seat s : kSeats) {
        const auto& f = game->frames[static_cast<std::size_t>(seat_index(s))];
        length += f.size();
        pending[static_cast<std::size_t>(seat_index(s))].append(f, 0, f.size(), state_dim(s));
      }
      lengths.push_back(length);
      // One learner step of `s` on its oldest frames, with its bookkeeping.
      auto learn_seat = [&](Seat s) {
        auto& p = pending[static_cast<std::size_t>(seat_index(s))];
        losses[static_cast<std::size_t>(seat_index(s))] = train_step(s, p);
        drop_front(p, per_step, state_dim(s));
        frames_ += per_step;
        stores[static_cast<std::size_t>(seat_index(s))].publish(snapshot_module((*nets_)[s]));
        auto& log = monitor.logger();
        for (Seat t : kSeats)
          log.record(fmt::format("train/loss_{}", seat_name(t)), losses[static_cast<std::size_t>(seat_index(t))]);
        log.record("rollout/landlord_wp", finished ? static_cast<double>(wins) / static_cast<double>(finished) : 0.0);
        log.record("time/games", static_cast<double>(games_));
        if (cfg_.eval_every > 0 && frames_ >= next_eval_) {
          while (next_eval_ <= frames_) next_eval_ += cfg_.eval_every;
          evaluate_against_baselines(monitor);
        }
        const std::vector<std::uint8_t> done(returns.size(), 1), cut(returns.size(), 0);
        if (!run.after_step(StepEpisodes{done, cut, returns, lengths}, frames_)) stop = true;
        returns.clear();
        lengths.clear();
        run.end_cycle(frames_);
      };
      // Each seat learns from every whole batch it has, in seat order. Several learners
      // all-reduce each step's gradients, so they must step the same seats in the same order
      // though their games differ: they take the batches every rank has (one collective per
      // game; for one learner minimum() is the identity).
      std::vector<std::int64_t> batches;
      for (Seat s : kSeats) batches.push_back(pending[static_cast<std::size_t>(seat_index(s))].size() / per_step);
      batches = gradient_reducer().minimum(std::move(batches));
      for (std::size_t i = 0; i < kSeats.size(); ++i)
        for (std::int64_t b = 0; b < batches[i] && frames_ < target && !stop; ++b) learn_seat(kSeats[i]);
    }
  } catch (...) {
    group.fail("learner", std::current_exception());
  }
  group.stop_and_join();  // rethrows the first error (the learner's or an actor's)
}

CheckpointWriter DmcAgent::checkpoint() const {
  CheckpointWriter w = agent_checkpoint_writer(*this);
  for (Seat s : kSeats) {
    w.add(seat_blob(s, ".pt"), save_module((*nets_)[s]));
    w.add(seat_blob(s, "_optimizer.pt"), save_optimizer(*optimizers_[static_cast<std::size_t>(seat_index(s))]));
  }
  w.add_json("state.json", nlohmann::json{{"frames", frames_}, {"games", games_}, {"next_eval", next_eval_}});
  return w;
}

void DmcAgent::restore(const CheckpointReader& reader) {
  for (Seat s : kSeats) {
    load_module((*nets_)[s], reader, seat_blob(s, ".pt"));
    load_optimizer(*optimizers_[static_cast<std::size_t>(seat_index(s))], reader, seat_blob(s, "_optimizer.pt"));
  }
  const auto state = reader.read_json("state.json");
  frames_ = state.at("frames").get<std::int64_t>();
  games_ = state.at("games").get<std::int64_t>();
  next_eval_ = state.at("next_eval").get<std::int64_t>();
}

void register_dmc() {
  AlgorithmCapabilities caps;
  caps.observation_spaces = {SpaceKind::Box};  // DouDizhu's encoding (the agent refuses other envs)
  caps.action_spaces = {SpaceKind::Discrete};
  caps.learning = LearningKind::on_policy;  // Monte-Carlo targets of recent games (DouZero's actors lag a little)
  caps.backends = {Backend::threads};       // whole games are played by actor threads (runtime.actors, at least 1)
  caps.several_learners = true;
  caps.gpu = true;
  caps.progress_unit = "frames";
  register_algorithm("dmc", algorithm_entry<DmcAgent, DmcConfig>(
                                "Deep Monte-Carlo with action encoding (DouZero) for DouDizhu-v0", caps));
}

}  // namespace rlzoo::dmc
