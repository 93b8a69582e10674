// DouZero's observation encoding (douzero/env/env.py), exactly, so that DouZero's networks
// read our observations and ours read DouZero's.
//
//  * Cards (54): rank column c (3 -> 0 ... A -> 11, 2 -> 12) held n times sets entries 4c ..
//    4c+n-1; entry 52 is the black joker, 53 the red joker. An action is encoded the same way.
//  * Landlord state (319): own hand, the union of the other two hands, the move to beat,
//    cards played by landlord_up, by landlord_down, landlord_up's and landlord_down's cards
//    left (one-hot of 17, entry n-1), the bombs played (one-hot of 15).
//  * Peasant state (430): own hand, the others' union, cards played by the landlord, by the
//    partner, the move to beat, the landlord's last action, the partner's last action (empty
//    for a pass), the landlord's cards left (one-hot of 20), the partner's (17), bombs (15).
//  * History (5 x 162): the last 15 moves of the game (passes as zeros), oldest first, left
//    padded with empty moves; row i holds moves 3i, 3i+1, 3i+2 of those 15.
#pragma once

#include <cstdint>

#include "envs/doudizhu/game.h"

namespace rlzoo::doudizhu {

inline constexpr int kCardDim = 54;
inline constexpr int kLandlordStateDim = 319;
inline constexpr int kPeasantStateDim = 430;
inline constexpr int kMaxStateDim = kPeasantStateDim;
inline constexpr int kHistoryMoves = 15;
inline constexpr int kHistoryRows = 5;
inline constexpr int kHistoryRowDim = 162;
inline constexpr int kHistoryDim = kHistoryRows * kHistoryRowDim;  // 810

inline constexpr int state_dim(Seat s) { return s == Seat::Landlord ? kLandlordStateDim : kPeasantStateDim; }

// T is std::uint8_t or float. Every function writes all of its entries (zeros included).
template <typename T>
void encode_cards(CardCounts c, T* out);  // kCardDim entries
template <typename T>
void encode_state(const Game& g, Seat s, T* out);  // state_dim(s) entries, seen from seat s
template <typename T>
void encode_history(const Game& g, T* out);  // kHistoryDim entries

}  // namespace rlzoo::doudizhu
