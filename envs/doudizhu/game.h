// A game of DouDizhu with DouZero's rules (see legal_moves.h for the moves).
//
//  * Three seats. The landlord holds 20 cards (its 17 plus the three landlord cards, which
//    everybody sees); the two peasants hold 17 each. There is no bidding: the landlord seat is
//    fixed, as in DouZero's training and evaluation.
//  * Play order: landlord, landlord_down (the peasant after the landlord), landlord_up (the
//    peasant before it), landlord, ... The landlord leads first.
//  * The move to beat is the last move if it was not a pass, else the one before it; after two
//    passes in a row the player who made the last real move leads again (nothing to beat).
//  * A player who is not leading may always pass, even on the partner's move; a peasant may
//    beat the other peasant.
//  * The game ends as soon as a hand is empty: the landlord wins if it emptied its hand, else
//    both peasants win. There is no spring rule.
//  * Every bomb or rocket played doubles the stake (bombs() counts them; four-with-two does
//    not). Scores (zero-sum): the landlord wins or loses 2 x 2^bombs, each peasant 2^bombs.
//    Training returns (DouZero's objectives, from the landlord's view; each peasant gets the
//    negative): ADP +-2^bombs, WP +-1, logADP +-(bombs + 1).
#pragma once

#include <array>
#include <span>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/common/rng.h"
#include "envs/doudizhu/cards.h"
#include "envs/doudizhu/move_type.h"

namespace rlzoo::doudizhu {

// Seats in play order.
enum class Seat : int { Landlord = 0, LandlordDown = 1, LandlordUp = 2 };
inline constexpr int kNumSeats = 3;
inline constexpr std::array<Seat, 3> kSeats = {Seat::Landlord, Seat::LandlordDown, Seat::LandlordUp};
// "landlord", "landlord_down", "landlord_up" (DouZero's position names).
std::string_view seat_name(Seat s);
// Throws UserError listing the valid names.
Seat seat_from_name(std::string_view name);
inline constexpr int seat_index(Seat s) { return static_cast<int>(s); }
inline constexpr Seat next_seat(Seat s) { return static_cast<Seat>((seat_index(s) + 1) % 3); }
inline constexpr bool is_peasant(Seat s) { return s != Seat::Landlord; }
// The other peasant (for a peasant).
inline constexpr Seat partner(Seat s) { return s == Seat::LandlordDown ? Seat::LandlordUp : Seat::LandlordDown; }

struct Deal {
  std::array<CardCounts, 3> hands;   // by Seat; the landlord's 20 include the three landlord cards
  CardCounts three_landlord_cards;

  // A uniformly random deal (DouZero's layout: the landlord gets cards 0..19 of the shuffled
  // deck, of which 17..19 are the three landlord cards; landlord_up 20..36; landlord_down 37..53).
  static Deal random(Rng& rng);
  // Throws UserError unless the hands hold 20/17/17 cards, together the whole deck, and the
  // three landlord cards are in the landlord's hand. `where` prefixes the message.
  void validate(std::string_view where = "deal") const;
};

enum class Objective { Adp, Wp, LogAdp };
// "adp", "wp", "logadp"; throws UserError listing them.
Objective objective_from_name(std::string_view name);
std::string_view objective_name(Objective o);

class Game {
 public:
  // An upper bound on the moves of a game: a play removes at least one of the 54 cards and at
  // most two passes come between plays.
  static constexpr int kMaxMoves = 3 * kDeckSize;

  explicit Game(const Deal& deal);
  void reset(const Deal& deal);

  const Deal& deal() const { return deal_; }
  Seat acting() const { return acting_; }
  CardCounts hand(Seat s) const { return hands_[static_cast<std::size_t>(seat_index(s))]; }
  CardCounts played(Seat s) const { return played_[static_cast<std::size_t>(seat_index(s))]; }
  // The seat's most recent move (empty if it passed or has not played yet).
  CardCounts last_action(Seat s) const { return last_action_[static_cast<std::size_t>(seat_index(s))]; }
  // The move to beat (empty: the acting player leads).
  CardCounts rival_move() const { return rival_; }
  const MoveInfo& rival_info() const { return rival_info_; }
  int bombs() const { return bombs_; }
  std::span<const CardCounts> history() const { return history_; }

  bool over() const { return over_; }
  // Valid once over(): the seat that emptied its hand.
  Seat winner() const;
  bool landlord_won() const { return winner() == Seat::Landlord; }
  // Training return of a seat (DouZero's), and the zero-sum evaluation score; valid once over().
  double reward(Seat s, Objective objective) const;
  double score(Seat s) const;

  // The acting player's legal moves (legal_moves.h order), computed once per position.
  const std::vector<CardCounts>& legal_moves();
  // Plays a move for the acting player. Throws UserError naming the seat, the move and the
  // hand when the move is not legal, or when the game is over.
  void play(CardCounts move);
  // Plays legal_moves()[i] (no legality check beyond the index).
  void play_index(std::size_t i);

 private:
  void apply(CardCounts move);

  Deal deal_;
  std::array<CardCounts, 3> hands_, played_, last_action_;
  std::vector<CardCounts> history_;
  std::vector<CardCounts> legal_;
  bool legal_valid_ = false;
  CardCounts rival_;
  MoveInfo rival_info_{MoveType::Pass, -1, 0};
  Seat acting_ = Seat::Landlord;
  int bombs_ = 0;
  bool over_ = false;
};

// A whole game: the deal and every move in order (empty = pass); enough to replay it.
struct GameRecord {
  Deal deal;
  std::vector<CardCounts> history;
};
// JSON: {"deal": {"landlord": [...20], "landlord_up": [...17], "landlord_down": [...17],
// "three_landlord_cards": [...3]}, "history": [[...], [], ...]} with DouZero card integers.
nlohmann::json record_to_json(const GameRecord& r);
// Throws UserError naming the field (prefixed by `where`) that is missing or malformed.
GameRecord record_from_json(const nlohmann::json& j, std::string_view where = "record");
Deal deal_from_json(const nlohmann::json& j, std::string_view where = "deal");
nlohmann::json deal_to_json(const Deal& d);
std::vector<CardCounts> moves_from_json(const nlohmann::json& j, std::string_view where);
// A list of DouZero card integers; UserError names `where` and the bad entry.
CardCounts cards_from_json(const nlohmann::json& j, std::string_view where);
// Replays a record move by move; throws UserError at the first illegal move ("history[12]").
Game replay(const GameRecord& r);

}  // namespace rlzoo::doudizhu
