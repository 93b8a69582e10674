// A deterministic rule-based baseline (torch-free), for evaluations and sanity checks.
//
// Words used below:
//  * protected cards: every rank of which the hand holds all four (a bomb), and both jokers
//    when the hand holds the rocket. A move "touches" them when it uses any such card; bombs,
//    the rocket and four-with-two always do, so they are never played as ordinary moves.
//  * main rank of a move: the lowest of the ranks it holds the most copies of (the rank of a
//    solo, pair or trio; the trio of 3+1 and 3+2; the lowest card of a chain; the lowest trio
//    of an airplane).
//  * broken ranks: ranks of which the move takes some but not all of the copies in the hand
//    (e.g. a chain through a pair, a kicker taken from a trio).
//  * the rival seat: the seat that made the move to beat (the last non-pass move of the
//    history; move i of the history belongs to kSeats[i % 3]).
//
// The policy, checked in this order:
//  1. Last cards: if one legal move is the whole hand, play it (even a bomb, a rocket or 4+2).
//  2. Leading (nothing to beat): among the legal moves that touch no protected card (solos,
//     pairs, trios, 3+1, 3+2, solo/pair/trio chains and airplanes with wings), play the one
//     that sheds the most cards; ties go to the lowest main rank, then the fewest broken
//     ranks, then the first in legal_moves() order (the lowest kickers). Bombs and the rocket
//     are kept; only when every card is protected does it lead the lowest bomb (the rocket
//     when it holds no bomb).
//  3. Responding to an opponent: the cheapest beat, i.e. among the non-pass legal moves that
//     touch no protected card (all of them are of the rival's type and length) the lowest
//     main rank, then the fewest broken ranks, then the first in legal order. With no such
//     beat: if the rival seat holds at most kBombThreshold cards, the first bomb or rocket in
//     legal order (the lowest bomb that beats it, the rocket when no bomb does); otherwise pass.
//     A bomb is answered only by that bomb rule.
//  4. Responding to the partner (a peasant, on the other peasant's move): pass, unless this
//     seat is landlord_up (the landlord plays right after it, so passing lets the landlord
//     take the trick) and the landlord holds at most kLandlordDanger cards; then it plays the
//     cheapest beat of rule 3 without the bomb rule (pass when there is none). landlord_down
//     always passes on its partner: the landlord has already passed on that move.
//
// Stateless and deterministic: choose() is a function of the Game only. Reads only what the
// acting seat may know (its hand, the history, the number of cards each seat holds). Works on
// g.legal_moves() and CardCounts; allocates nothing.
#pragma once

#include "envs/doudizhu/player.h"

namespace rlzoo::doudizhu {

class RulePlayer : public Player {
 public:
  // An opponent with at most this many cards left may be bombed (rule 3).
  static constexpr int kBombThreshold = 4;
  // A landlord with at most this many cards left makes landlord_up take over its partner's trick (rule 4).
  static constexpr int kLandlordDanger = 4;

  std::string name() const override { return "rule"; }
  std::size_t choose(Game& g) override;
};

}  // namespace rlzoo::doudizhu
