// The seat protocol: how a program outside rlzoo plays a DouDizhu seat (outside_player.h runs
// it; docs/envs/doudizhu.md#outside-programs shows a whole exchange and a Python opponent).
// One JSON object per line each way; cards are lists of DouZero's card integers (3..14, 17 for
// the 2, 20 and 30 for the jokers), an empty list is a pass.
//
// rlzoo -> program, when the seat must choose (a position with one legal move is played
// without asking, as rlzoo's own players skip it):
//   {"type": "move", "protocol": 1, "game": 4, "seat": "landlord_up",
//    "hand": [...], "three_landlord_cards": [...],
//    "history": [[...], [], ...],            every move so far, the landlord's first
//    "played": {"landlord": [...], "landlord_down": [...], "landlord_up": [...]},
//    "cards_left": {"landlord": 14, "landlord_down": 17, "landlord_up": 12},
//    "rival_move": [...],                    the move to beat; [] when the seat leads
//    "bombs": 0, "legal_moves": [[...], [], ...]}
// That is the seat's information set: its own hand and what everyone sees, never another hand.
//
// program -> rlzoo, one line per "move" request, in order:
//   {"move": [5, 5]}    the cards (a legal move; [] passes), or the text "55" / "pass"
//   {"index": 3}        or the position of the move in legal_moves (0-based)
//
// rlzoo -> program, no answer expected, once a game the seat was asked in has ended:
//   {"type": "game_over", "protocol": 1, "game": 4, "seat": ..., "winner": "landlord_down",
//    "landlord_won": false, "bombs": 1, "score": 2.0, "deal": {...}, "history": [...]}
// ("score": the seat's zero-sum score; deal + history replay the game: game.h's record JSON.)
//
// "game" numbers the games the program takes part in (several may be in flight at once when
// the evaluation runs games in parallel; every request is complete on its own). The program's
// standard input closing means the evaluation is over.
#pragma once

#include <cstdint>
#include <span>

#include <nlohmann/json.hpp>

#include "envs/doudizhu/game.h"

namespace rlzoo::doudizhu {

inline constexpr int kSeatProtocolVersion = 1;

// The "move" request for the acting seat of `g` (which is not over).
nlohmann::json move_request(Game& g, std::int64_t game);

// The index into `legal` of the move an answer names. Throws UserError saying what is wrong
// with it (not an object, neither or both of "move" and "index", an index out of range, cards
// that are not one of the legal moves).
std::size_t move_from_answer(const nlohmann::json& answer, std::span<const CardCounts> legal);

// The "game_over" message for `seat` of the finished game `g`.
nlohmann::json game_over_message(const Game& g, Seat seat, std::int64_t game);

}  // namespace rlzoo::doudizhu
