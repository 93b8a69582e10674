// Move classification, exactly as DouZero's detector (douzero/env/move_detector.py) does it,
// including its quirks, because the type of the move to beat decides which answers are legal:
//  * a generated airplane with solo wings whose wings hold a four-of-a-kind or an extra trio
//    (length 4 or 5, e.g. 333444555666+7777) is WRONG: after it only bombs, rocket or pass;
//  * 333444555666 is a trio chain of length 4, never an airplane of length 3;
//  * (never reached in play) 4+1 (33334) reads as 3+2, two quads (33334444) as 4+2 pairs, and
//    any multiset with exactly 4 trio ranks, 3 of them consecutive, and no quad as an
//    airplane with solo wings of length 3.
#pragma once

#include <string_view>

#include "envs/doudizhu/cards.h"

namespace rlzoo::doudizhu {

// DouZero's type ids.
enum class MoveType : int {
  Pass = 0,
  Single = 1,
  Pair = 2,
  Triple = 3,
  Bomb = 4,
  Rocket = 5,          // KING_BOMB: both jokers
  TrioSolo = 6,        // 3+1
  TrioPair = 7,        // 3+2
  SoloChain = 8,       // SERIAL_SINGLE, >= 5 ranks from 3..A
  PairChain = 9,       // SERIAL_PAIR, >= 3 ranks
  TrioChain = 10,      // SERIAL_TRIPLE, >= 2 ranks
  AirplaneSolo = 11,   // SERIAL_3_1
  AirplanePair = 12,   // SERIAL_3_2
  FourTwoSolo = 13,    // 4_2
  FourTwoPair = 14,    // 4_22
  Wrong = 15,
};

struct MoveInfo {
  MoveType type = MoveType::Wrong;
  int rank = -1;  // DouZero card integer of the detector's rank, -1 where it gives none
  int len = 0;    // chain length for types 8..12, 0 otherwise
};

MoveInfo classify_move(CardCounts move);

// DouZero's constant names, e.g. "TYPE_11_SERIAL_3_1".
std::string_view move_type_name(MoveType t);
bool is_bomb_or_rocket(MoveType t);

}  // namespace rlzoo::doudizhu
