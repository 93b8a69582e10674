// `rlzoo doudizhu play`: a person plays one seat in the terminal against two AI seats.
// Input is read line by line; anything malformed or illegal is explained and asked again.
#include <array>
#include <cctype>
#include <chrono>
#include <iostream>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "apps/doudizhu_agents.h"
#include "core/common/error.h"
#include "core/common/rng.h"
#include "envs/doudizhu/game.h"
#include "envs/doudizhu/legal_moves.h"

namespace rlzoo::cli {

using namespace doudizhu;

namespace {

constexpr const char* kHelp =
    "Type your move as cards: 3-9, T (or 10), J, Q, K, A, 2, B (black joker), R (red joker); spaces are "
    "optional, e.g. `33 44 55`, `JJJ 9`, `TJQKA`, `B R`. Other commands: pass, hint (your legal moves), help, quit.";

std::string who(Seat s, Seat you) { return s == you ? "you" : std::string(seat_name(s)); }

// Returns false when the person quits or input ends.
bool human_turn(Game& g, Seat you, std::istream& in, std::ostream& out) {
  out << fmt::format("\nYour hand ({} cards): {}\n", g.hand(you).size(), format_cards(g.hand(you)));
  if (g.rival_move().empty()) out << "You lead.\n";
  else out << fmt::format("To beat: {}\n", format_cards(g.rival_move()));
  for (;;) {
    out << "> " << std::flush;
    std::string line;
    if (!std::getline(in, line)) return false;
    std::string cmd;
    for (char c : line)
      if (!std::isspace(static_cast<unsigned char>(c))) cmd.push_back(static_cast<char>(std::tolower(c)));
    // Commands are whole words that hold a letter no card has (u, i, e, x, h, l, n), so no
    // move is ever read as one: "q" and "Q" are a queen.
    if (cmd == "quit" || cmd == "exit") return false;
    if (cmd == "help" || cmd == "?") {
      out << kHelp << "\n";
      continue;
    }
    if (cmd == "hint") {
      const auto& legal = g.legal_moves();
      out << fmt::format("{} legal moves:", legal.size());
      for (std::size_t i = 0; i < legal.size() && i < 40; ++i) out << "  " << format_cards(legal[i]);
      out << (legal.size() > 40 ? "  ...\n" : "\n");
      continue;
    }
    if (cmd.empty()) {
      out << "Type a move, pass, hint or help.\n";
      continue;
    }
    try {
      g.play(parse_cards(line));
      return true;
    } catch (const UserError& e) {
      out << "Not accepted: " << e.what() << "\n";
    }
  }
}

}  // namespace

void run_doudizhu_play(const std::string& ai, const std::string& seat, const std::array<std::string, 3>& seat_agents,
                       std::uint64_t seed, std::chrono::milliseconds answer_timeout, std::istream& in,
                       std::ostream& out) {
  const Seat you = seat_from_name(seat);
  if (!seat_agents[static_cast<std::size_t>(seat_index(you))].empty())
    throw UserError(fmt::format("an agent was named for {}, your own seat (--seat {})", seat_name(you),
                                seat_name(you)));
  // The other seats share one player made from --ai (so a seeded game plays as it always has),
  // unless a seat names its own agent.
  auto shared = make_doudizhu_player(ai, seed + 1, answer_timeout);
  std::array<std::unique_ptr<Player>, 3> own;
  std::array<Player*, 3> player{};
  std::string others;
  for (Seat s : kSeats) {
    if (s == you) continue;
    const auto i = static_cast<std::size_t>(seat_index(s));
    if (!seat_agents[i].empty()) own[i] = make_doudizhu_player(seat_agents[i], seed + 2 + i, answer_timeout);
    player[i] = own[i] ? own[i].get() : shared.get();
    others += fmt::format("; {}: {}", seat_name(s), player[i]->name());
  }
  Rng rng(seed);
  double total = 0;
  out << kHelp << "\n";
  for (int deal = 1;; ++deal) {
    Game g(Deal::random(rng));
    out << fmt::format("\n=== Deal {}: you are {}{}. Landlord's extra cards: {} ===\n", deal, seat_name(you), others,
                       format_cards(g.deal().three_landlord_cards));
    while (!g.over()) {
      const Seat s = g.acting();
      if (s == you) {
        if (!human_turn(g, you, in, out)) {
          out << fmt::format("\nBye. Your total score: {:+g} over {} finished deal(s).\n", total, deal - 1);
          return;
        }
        continue;
      }
      const auto& legal = g.legal_moves();
      const CardCounts move = legal[legal.size() == 1 ? 0 : player[static_cast<std::size_t>(seat_index(s))]->choose(g)];
      g.play(move);
      out << fmt::format("  {} ({} left): {}\n", seat_name(s), g.hand(s).size(), format_cards(move));
    }
    shared->game_over(g);
    for (const auto& p : own)
      if (p) p->game_over(g);
    const double score = g.score(you);
    total += score;
    out << fmt::format("\n{} wins. Bombs played: {}. Your score: {:+g} (total {:+g}).\n",
                       g.landlord_won() ? "The landlord" : "The peasants", g.bombs(), score, total);
    out << "Hands left: ";
    for (Seat s : kSeats) out << fmt::format("{}: {}; ", who(s, you), format_cards(g.hand(s)));
    out << "\n";
  }
}

}  // namespace rlzoo::cli
