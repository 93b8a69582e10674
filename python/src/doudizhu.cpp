// The DouDizhu engine (envs/doudizhu/) as the submodule `_rlzoo.doudizhu`: a Game with its
// state (hands, acting seat, history, winner), legal moves and moves applied, plus the card
// helpers. Cards go in as text in the engine's notation ("33 44 T J Q K A 2 B R", "pass") or
// as lists of DouZero's card integers (3..14, 17 = 2, 20 = black joker, 30 = red joker), and
// come out as text (format_cards: highest first, e.g. "R 2 AA T 5") or integer lists.
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <optional>
#include <random>
#include <string>
#include <vector>

#include "bindings.h"
#include "envs/doudizhu/cards.h"
#include "envs/doudizhu/doudizhu_env.h"
#include "envs/doudizhu/game.h"
#include "envs/doudizhu/legal_moves.h"
#include "envs/doudizhu/move_type.h"

namespace rlzoo::python {

namespace {

namespace dz = rlzoo::doudizhu;

dz::CardCounts cards_from(py::handle v, const std::string& what) {
  if (v.is_none()) return {};
  if (py::isinstance<py::str>(v)) return dz::parse_cards(v.cast<std::string>());
  std::vector<int> cards;
  try {
    cards = v.cast<std::vector<int>>();
  } catch (const py::cast_error&) {
    throw UserError(fmt::format("{}: expected cards as text (\"33 T J\") or a list of DouZero card integers, got {}",
                                what, py::repr(v).cast<std::string>()));
  }
  return dz::CardCounts::from_cards(cards, what);
}

dz::Seat seat_from(py::handle v) {
  if (py::isinstance<py::str>(v)) return dz::seat_from_name(v.cast<std::string>());
  const int i = v.cast<int>();
  if (i < 0 || i >= dz::kNumSeats) throw UserError(fmt::format("seat index {} is not 0, 1 or 2", i));
  return static_cast<dz::Seat>(i);
}

std::string seat_str(dz::Seat s) { return std::string(dz::seat_name(s)); }

std::vector<std::string> texts(std::span<const dz::CardCounts> moves) {
  std::vector<std::string> out;
  out.reserve(moves.size());
  for (auto m : moves) out.push_back(dz::format_cards(m));
  return out;
}

std::vector<std::vector<int>> card_lists(std::span<const dz::CardCounts> moves) {
  std::vector<std::vector<int>> out;
  out.reserve(moves.size());
  for (auto m : moves) out.push_back(m.cards());
  return out;
}

dz::Deal deal_from(const py::dict& d) {
  dz::Deal deal;
  for (dz::Seat s : dz::kSeats) {
    const auto name = seat_str(s);
    if (!d.contains(name)) throw UserError(fmt::format("deal: missing \"{}\"", name));
    deal.hands[static_cast<std::size_t>(dz::seat_index(s))] = cards_from(py::object(d[py::str(name)]), "deal." + name);
  }
  if (!d.contains("three_landlord_cards")) throw UserError("deal: missing \"three_landlord_cards\"");
  deal.three_landlord_cards = cards_from(py::object(d["three_landlord_cards"]), "deal.three_landlord_cards");
  deal.validate("deal");
  return deal;
}

dz::Game new_game(std::optional<std::uint64_t> seed, const std::optional<py::dict>& deal) {
  if (deal) {
    if (seed) throw UserError("Game: give a seed or a deal, not both");
    return dz::Game(deal_from(*deal));
  }
  Rng rng(seed ? *seed : (std::uint64_t{std::random_device{}()} << 32) ^ std::random_device{}());
  return dz::Game(dz::Deal::random(rng));
}

}  // namespace

py::object doudizhu_game_of(const Env& env) {
  const auto* d = dynamic_cast<const dz::DouDizhuEnv*>(&env);
  if (!d) return py::none();
  return py::cast(dz::Game(d->game()));
}

void bind_doudizhu(py::module_& m) {
  auto dd = m.def_submodule("doudizhu", "The DouDizhu engine (DouZero's rules)");
  dd.attr("SEATS") = py::make_tuple("landlord", "landlord_down", "landlord_up");

  py::class_<dz::Game>(dd, "Game",
                       "A game of DouDizhu: a random deal from `seed`, or the given `deal` (a dict with the "
                       "hands of landlord (20 cards), landlord_down and landlord_up (17 each) and the "
                       "three_landlord_cards). The landlord seat is fixed (no bidding) and leads first.")
      .def(py::init(&new_game), py::arg("seed") = py::none(), py::arg("deal") = py::none())
      .def_property_readonly("acting", [](const dz::Game& g) { return seat_str(g.acting()); }, "The seat to move")
      .def_property_readonly("acting_index", [](const dz::Game& g) { return dz::seat_index(g.acting()); })
      .def_property_readonly_static("landlord", [](py::handle) { return std::string("landlord"); },
                                    "The landlord's seat (fixed: DouZero's rules have no bidding)")
      .def_property_readonly("hands",
                             [](const dz::Game& g) {
                               py::dict d;
                               for (dz::Seat s : dz::kSeats) d[py::str(seat_str(s))] = dz::format_cards(g.hand(s));
                               return d;
                             })
      .def("hand", [](const dz::Game& g, py::handle seat) { return dz::format_cards(g.hand(seat_from(seat))); },
           py::arg("seat"))
      .def("hand_cards", [](const dz::Game& g, py::handle seat) { return g.hand(seat_from(seat)).cards(); },
           py::arg("seat"), "The seat's hand as ascending DouZero card integers")
      .def("played", [](const dz::Game& g, py::handle seat) { return dz::format_cards(g.played(seat_from(seat))); },
           py::arg("seat"))
      .def("last_action",
           [](const dz::Game& g, py::handle seat) { return dz::format_cards(g.last_action(seat_from(seat))); },
           py::arg("seat"))
      .def_property_readonly("three_landlord_cards",
                             [](const dz::Game& g) { return dz::format_cards(g.deal().three_landlord_cards); })
      .def_property_readonly("rival_move", [](const dz::Game& g) { return dz::format_cards(g.rival_move()); },
                             "The move to beat ('pass' when the acting seat leads)")
      .def_property_readonly("bombs", &dz::Game::bombs)
      .def_property_readonly("over", &dz::Game::over)
      .def_property_readonly("winner",
                             [](const dz::Game& g) { return g.over() ? py::object(py::str(seat_str(g.winner()))) : py::none(); })
      .def_property_readonly("history", [](const dz::Game& g) { return texts(g.history()); },
                             "Every move so far, in order ('pass' for a pass)")
      .def_property_readonly("history_cards", [](const dz::Game& g) { return card_lists(g.history()); })
      .def("legal_moves", [](dz::Game& g) { return texts(g.legal_moves()); },
           "The acting seat's legal moves as text, in the engine's order (the env's candidate order)")
      .def("legal_move_cards", [](dz::Game& g) { return card_lists(g.legal_moves()); },
           "The legal moves as lists of DouZero card integers")
      .def(
          "legal_move_counts",
          [](dz::Game& g) {
            const auto& moves = g.legal_moves();
            py::array_t<std::uint8_t> out({static_cast<py::ssize_t>(moves.size()), py::ssize_t{dz::kNumRanks}});
            auto w = out.mutable_unchecked<2>();
            for (std::size_t i = 0; i < moves.size(); ++i)
              for (int r = 0; r < dz::kNumRanks; ++r) w(static_cast<py::ssize_t>(i), r) = static_cast<std::uint8_t>(moves[i].count(r));
            return out;
          },
          "The legal moves as card counts per rank [moves, 15] (ranks 3..A, 2, black joker, red joker)")
      .def(
          "play", [](dz::Game& g, py::handle move) { g.play(cards_from(move, "move")); }, py::arg("move"),
          "Plays a move for the acting seat (text, card integers, or 'pass'); raises for an illegal move")
      .def(
          "play_index",
          [](dz::Game& g, std::int64_t i) {
            if (g.over()) throw UserError("the game is over");
            const auto n = static_cast<std::int64_t>(g.legal_moves().size());
            if (i < 0 || i >= n) throw py::index_error(fmt::format("legal move index {} is not in 0..{}", i, n - 1));
            g.play_index(static_cast<std::size_t>(i));
          },
          py::arg("index"), "Plays legal_moves()[index]")
      .def("score", [](const dz::Game& g, py::handle seat) {
             if (!g.over()) throw UserError("score: the game is not over");
             return g.score(seat_from(seat));
           }, py::arg("seat"), "Zero-sum score once over: landlord +-2 x 2^bombs, each peasant -+2^bombs")
      .def("reward", [](const dz::Game& g, py::handle seat, const std::string& objective) {
             if (!g.over()) throw UserError("reward: the game is not over");
             return g.reward(seat_from(seat), dz::objective_from_name(objective));
           }, py::arg("seat"), py::arg("objective") = "adp", "Training return once over (adp, wp or logadp)")
      .def("record_json",
           [](const dz::Game& g) {
             return dz::record_to_json({g.deal(), {g.history().begin(), g.history().end()}}).dump();
           },
           "The deal and every move as JSON (`rlzoo doudizhu` reads it)")
      .def("copy", [](const dz::Game& g) { return dz::Game(g); })
      .def("__copy__", [](const dz::Game& g) { return dz::Game(g); })
      .def("__repr__", [](const dz::Game& g) {
        return fmt::format("<doudizhu.Game acting={} landlord=[{}] landlord_down=[{}] landlord_up=[{}] moves={}{}>",
                           seat_str(g.acting()), dz::format_cards(g.hand(dz::Seat::Landlord)),
                           dz::format_cards(g.hand(dz::Seat::LandlordDown)), dz::format_cards(g.hand(dz::Seat::LandlordUp)),
                           g.history().size(), g.over() ? " over, winner=" + seat_str(g.winner()) : "");
      });

  dd.def(
      "from_record_json",
      [](const std::string& text) { return dz::replay(dz::record_from_json(nlohmann::json::parse(text))); },
      py::arg("text"), "Replays a game written by Game.record_json()");
  dd.def("parse_cards", [](const std::string& text) { return dz::parse_cards(text).cards(); }, py::arg("text"),
         "Card text -> ascending DouZero card integers");
  dd.def("format_cards", [](py::handle cards) { return dz::format_cards(cards_from(cards, "cards")); }, py::arg("cards"),
         "Cards (text or integers) -> the engine's text, highest first ('pass' for none)");
  dd.def(
      "legal_moves",
      [](py::handle hand, py::handle rival) {
        return texts(dz::legal_moves(cards_from(hand, "hand"), cards_from(rival, "rival")));
      },
      py::arg("hand"), py::arg("rival") = py::none(),
      "Legal moves of `hand` against the move to beat `rival` (None or 'pass': a free lead), as text; "
      "'pass' comes last when answering");
  dd.def(
      "classify_move",
      [](py::handle move) {
        const dz::MoveInfo info = dz::classify_move(cards_from(move, "move"));
        py::dict d;
        d["type"] = std::string(dz::move_type_name(info.type));
        d["type_id"] = static_cast<int>(info.type);
        d["rank"] = info.rank;
        d["length"] = info.len;
        return d;
      },
      py::arg("move"), "DouZero's move type of a move: {type, type_id, rank, length}");
}

}  // namespace rlzoo::python
