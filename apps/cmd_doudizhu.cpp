// `rlzoo doudizhu ...`: evaluate DouDizhu agents head to head, play against them, import
// DouZero's models, and the JSON-lines tools (legal-moves, q-values) for comparing with DouZero.
#include <array>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <iostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "rl/agent.h"
#include "algorithms/dmc/decision_batch.h"
#include "algorithms/dmc/dmc.h"
#include "apps/cli_checks.h"
#include "apps/commands.h"
#include "apps/doudizhu_agents.h"
#include "apps/json_lines.h"
#include "core/common/error.h"
#include "envs/doudizhu/evaluation.h"
#include "envs/doudizhu/legal_moves.h"
#include "envs/doudizhu/peasant_pair.h"

namespace rlzoo::cli {

void run_doudizhu_play(const std::string& ai, const std::string& seat, const std::array<std::string, 3>& seat_agents,
                       std::uint64_t seed, std::chrono::milliseconds answer_timeout, std::istream& in,
                       std::ostream& out);

namespace {

using namespace doudizhu;

const nlohmann::json& require(const nlohmann::json& j, const char* key) {
  if (!j.is_object() || !j.contains(key)) throw UserError(fmt::format("missing \"{}\"", key));
  return j.at(key);
}

nlohmann::json moves_json(const std::vector<CardCounts>& moves) {
  nlohmann::json out = nlohmann::json::array();
  for (CardCounts m : moves) out.push_back(m.cards());
  return out;
}

void legal_moves_command() {
  for_each_json_line(std::cin, [](const nlohmann::json& j) {
    const auto hand = cards_from_json(require(j, "hand"), "hand");
    const auto rival = cards_from_json(require(j, "rival_move"), "rival_move");
    if (!CardCounts::full_deck().contains(hand + rival))
      throw UserError("hand and rival_move together hold more copies of a card than the deck");
    std::cout << nlohmann::json{{"legal", moves_json(legal_moves(hand, rival))}}.dump() << "\n" << std::flush;
  });
}

void q_values_command(const std::string& spec) {
  const auto shared = load_doudizhu_nets(spec);
  dmc::SeatNets& nets = *shared;
  torch::InferenceMode inference;
  dmc::DecisionBatch batch;
  for_each_json_line(std::cin, [&](const nlohmann::json& j) {
    Game g = replay({deal_from_json(require(j, "deal")), moves_from_json(require(j, "history"), "history")});
    if (g.over()) throw UserError("the game is already over after this history");
    const Seat position = seat_from_name(require(j, "position").get<std::string>());
    if (position != g.acting())
      throw UserError(fmt::format("position is {}, but after {} moves {} acts next", seat_name(position),
                                  g.history().size(), seat_name(g.acting())));
    batch.clear();
    batch.add(g);
    batch.evaluate(nets);
    nlohmann::json q = nlohmann::json::array();
    for (std::size_t k = 0; k < g.legal_moves().size(); ++k) q.push_back(batch.q(0, k));
    std::cout << nlohmann::json{{"legal_actions", moves_json(g.legal_moves())}, {"q", q}}.dump() << "\n" << std::flush;
  });
}

void import_command(const std::string& dir, const std::string& out, bool force) {
  if (std::filesystem::exists(out) && !force)
    throw UserError(fmt::format("{} exists; choose another OUT or pass --force to replace it", out));
  auto agent = make_agent("dmc", "DouDizhu-v0");
  auto& dmc_agent = dynamic_cast<dmc::DmcAgent&>(*agent);
  dmc::load_douzero_folder(dmc_agent.nets(), dir);
  agent->save(out);
  fmt::print("imported DouZero's models from {} into {} (use it as an agent: rlzoo doudizhu eval --landlord {} ...)\n",
             dir, out, out);
}

std::chrono::milliseconds timeout_ms(double seconds) {
  return std::chrono::milliseconds(static_cast<std::int64_t>(std::ceil(seconds * 1000.0)));
}

}  // namespace

void add_doudizhu_commands(CLI::App& app) {
  auto* dz = app.add_subcommand("doudizhu", "DouDizhu: evaluate and play agents, import DouZero models, JSON tools");
  dz->require_subcommand(1);

  struct EvalOpts {
    std::string landlord, peasants, landlord_down, landlord_up;
    std::int64_t deals = 1000;
    std::uint64_t seed = 0;
    bool swap = false, json = false;
    int parallel = 64;
    double answer_timeout = 30;
  };
  auto eo = std::make_shared<EvalOpts>();
  auto* ev = dz->add_subcommand("eval", "Head to head: A as landlord, B as both peasants; WP and ADP with 95% CIs");
  const std::string agents = "random, rule, a run/checkpoint dir, a DouZero folder, or exec:COMMAND (an outside program)";
  ev->add_option("--landlord", eo->landlord, "agent A: " + agents)->required();
  auto* peasants = ev->add_option("--peasants", eo->peasants, "agent B (both peasant seats)");
  auto* down = ev->add_option("--landlord-down", eo->landlord_down, "the landlord_down seat instead of --peasants");
  auto* up = ev->add_option("--landlord-up", eo->landlord_up, "the landlord_up seat instead of --peasants");
  peasants->excludes(down)->excludes(up);
  ev->add_option("--deals", eo->deals, "random deals")->check(positive());
  ev->add_option("--seed", eo->seed, "seed of the deals");
  ev->add_flag("--swap", eo->swap, "also play every deal with the roles exchanged");
  ev->add_option("--parallel-games", eo->parallel, "games in flight (batched network evaluation)")
      ->check(positive());
  ev->add_option("--answer-timeout", eo->answer_timeout, "seconds an outside program may take per answer")
      ->check(CLI::Range(1e-3, 1e6));
  ev->add_flag("--json", eo->json, "print the result as one JSON object");
  ev->callback([eo] {
    const bool split = !eo->landlord_down.empty() || !eo->landlord_up.empty();
    if (split && (eo->landlord_down.empty() || eo->landlord_up.empty()))
      throw UserError("--landlord-down and --landlord-up go together (or --peasants for both seats)");
    if (!split && eo->peasants.empty()) throw UserError("--peasants (or --landlord-down and --landlord-up) is required");
    if (split && eo->swap)
      throw UserError("--swap exchanges the landlord with one agent on both peasant seats; with --landlord-down and "
                      "--landlord-up there is no such agent (use --peasants)");
    const auto timeout = timeout_ms(eo->answer_timeout);
    auto a = make_doudizhu_player(eo->landlord, eo->seed + 1, timeout);
    std::unique_ptr<Player> b, b_down, b_up;
    std::string b_name = eo->peasants;
    if (split) {
      b_down = make_doudizhu_player(eo->landlord_down, eo->seed + 2, timeout);
      b_up = make_doudizhu_player(eo->landlord_up, eo->seed + 3, timeout);
      b = std::make_unique<PeasantPair>(*b_down, *b_up);
      b_name = eo->landlord_down + " + " + eo->landlord_up;
    } else {
      b = make_doudizhu_player(eo->peasants, eo->seed + 2, timeout);
    }
    const auto r = evaluate_matchup(*a, *b, {.deals = eo->deals, .seed = eo->seed, .swap = eo->swap,
                                             .parallel_games = eo->parallel});
    if (eo->json) fmt::print("{}\n", to_json(r).dump());
    else fmt::print("{}", format_matchup(r, eo->landlord, b_name));
  });

  struct PlayOpts {
    std::string ai = "rule", seat = "landlord";
    std::array<std::string, 3> seat_agents;  // by seat: an agent of its own instead of --ai
    std::uint64_t seed = 0;
    double answer_timeout = 30;
  };
  auto po = std::make_shared<PlayOpts>();
  auto* play = dz->add_subcommand("play", "Play one seat in the terminal against two AI seats");
  play->add_option("--ai", po->ai, "the other seats' agent: " + agents);
  play->add_option("--seat", po->seat, "your seat: landlord, landlord_down or landlord_up");
  const std::array<std::string, 3> seat_options = {"--landlord", "--landlord-down", "--landlord-up"};  // kSeats order
  for (Seat s : kSeats) {
    const auto i = static_cast<std::size_t>(seat_index(s));
    play->add_option(seat_options[i], po->seat_agents[i], fmt::format("the {} seat's agent instead of --ai", seat_name(s)));
  }
  play->add_option("--seed", po->seed, "seed of the deals");
  play->add_option("--answer-timeout", po->answer_timeout, "seconds an outside program may take per answer")
      ->check(CLI::Range(1e-3, 1e6));
  play->callback([po] {
    run_doudizhu_play(po->ai, po->seat, po->seat_agents, po->seed, timeout_ms(po->answer_timeout), std::cin,
                      std::cout);
  });

  auto imp = std::make_shared<std::array<std::string, 2>>();
  auto force = std::make_shared<bool>(false);
  auto* im = dz->add_subcommand("import-douzero", "Convert DouZero's landlord*.ckpt files into an rlzoo dmc agent");
  im->add_option("DIR", (*imp)[0], "folder with landlord.ckpt, landlord_up.ckpt, landlord_down.ckpt")->required();
  im->add_option("OUT", (*imp)[1], "the rlzoo agent directory to write")->required();
  im->add_flag("--force", *force, "replace OUT if it exists");
  im->callback([imp, force] { import_command((*imp)[0], (*imp)[1], *force); });

  dz->add_subcommand("legal-moves", "stdin {\"hand\": [...], \"rival_move\": [...]} lines -> {\"legal\": [...]} lines")
      ->callback(legal_moves_command);

  struct QOpts {
    std::string douzero, agent;
  };
  auto qo = std::make_shared<QOpts>();
  auto* q = dz->add_subcommand("q-values", "stdin {deal, history, position} lines -> an agent's Q-values of the legal moves");
  auto* qd = q->add_option("--douzero-checkpoints", qo->douzero, "folder with DouZero's three .ckpt files");
  auto* qa = q->add_option("--agent", qo->agent, "a dmc run/checkpoint dir or a DouZero folder");
  qd->excludes(qa);
  q->callback([qo] {
    if (qo->douzero.empty() && qo->agent.empty()) throw UserError("q-values needs --agent (or --douzero-checkpoints)");
    if (!qo->douzero.empty() && !std::filesystem::exists(std::filesystem::path(qo->douzero) / "landlord.ckpt"))
      throw UserError(fmt::format("--douzero-checkpoints {}: no landlord.ckpt there (an rlzoo agent goes to --agent)",
                                  qo->douzero));
    q_values_command(qo->agent.empty() ? qo->douzero : qo->agent);
  });
}

}  // namespace rlzoo::cli
