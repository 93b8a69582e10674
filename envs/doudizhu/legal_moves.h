// Legal-move generation: DouZero's rules exactly (douzero/env/move_generator.py, game.py,
// move_selector.py), de-duplicated.
//
// The rules, in prose:
//  * Shapes: a solo (any card); a pair or trio of one rank (jokers never pair); a bomb (all
//    four of a rank); the rocket (both jokers); a trio with one solo kicker (3+1) or one pair
//    (3+2) of another rank; chains of 5+ solos, 3+ pairs or 2+ trios (an "airplane") over
//    consecutive ranks from 3 to A (2 and the jokers never sit in a chain); an airplane of L
//    trios with L solo wings (any L cards of ranks outside the body: they may form a pair, a
//    trio, a four-of-a-kind, include 2s or both jokers) or with L pair wings (L distinct ranks
//    outside the body, 2s allowed); a four-of-a-kind with two solo kickers (any two cards of
//    other ranks, a pair or the rocket included) or with two pairs of two other distinct ranks.
//    Only bombs and the rocket are bombs; four-with-two is an ordinary combination.
//  * Leading (nothing to beat): every shape the hand can make; passing is not allowed.
//  * Answering a move: a move of the same type (and, for chains and airplanes, the same length)
//    with a higher main rank, or any bomb, or the rocket, or pass. A bomb is beaten only by a
//    higher bomb or the rocket; nothing beats the rocket. The type of the move to beat is
//    DouZero's detector's (see move_type.h): a move it calls WRONG can only be bombed.
//  * Main rank: the lowest card for solos, pairs, trios, bombs and chains; the trio for 3+1 and
//    3+2; the four-of-a-kind for four-with-two; for airplanes with wings the highest rank that
//    appears exactly three times in the move (DouZero's rule: a wing trio can be that rank, so
//    333444555+777 ranks as 7).
//
// Order of the list (deterministic; the first of tied argmaxes wins, so it is part of the
// contract): types in DouZero's generator order (solo, pair, trio, bomb, rocket, 3+1, 3+2, solo
// chain, pair chain, trio chain, airplane+solos, airplane+pairs, 4+2 solos, 4+2 pairs) when
// leading; when answering, the same-type answers, then bombs, then the rocket, then pass.
// Within a type: by main rank (for chains: by length, then lowest rank), then by kickers
// ascending. Each multiset appears once (DouZero's raw list repeats some; the
// trio chain 333444555666 is listed as a trio chain only).
#pragma once

#include <vector>

#include "envs/doudizhu/cards.h"
#include "envs/doudizhu/move_type.h"

namespace rlzoo::doudizhu {

// Every move `hand` can lead with. `out` is cleared first; its capacity is reused.
void generate_leads(CardCounts hand, std::vector<CardCounts>& out);

// The legal moves of a player holding `hand` when the move to beat is `rival` (DouZero's
// rival move: the last non-pass of the trick; empty = free lead). Includes the pass (the empty
// CardCounts), last, exactly when rival is not empty.
void generate_legal_moves(CardCounts hand, CardCounts rival, std::vector<CardCounts>& out);
// The same when the rival's classification is already known (saves classifying it again).
void generate_legal_moves(CardCounts hand, CardCounts rival, const MoveInfo& rival_info,
                          std::vector<CardCounts>& out);

std::vector<CardCounts> legal_moves(CardCounts hand, CardCounts rival);

}  // namespace rlzoo::doudizhu
