// libFuzzer target: the DouDizhu card parser (human input at `rlzoo doudizhu play`) and the
// legal-move generator on arbitrary hands and moves to beat.
//
// Input byte 0 picks the mode. Text mode: the rest is a move as a human types it; parse_cards
// either throws UserError or returns cards that format and parse back to themselves. Hand mode:
// the rest gives a hand and a move to beat (any multisets the deck allows, not only reachable
// ones); every legal move must be a sub-multiset of the hand, listed once, with the pass
// exactly when there is something to beat, and every non-bomb answer to a playable move must
// have as many cards and, where the detector reads it as the same shape, a higher rank.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string_view>
#include <vector>

#include "core/common/error.h"
#include "envs/doudizhu/cards.h"
#include "envs/doudizhu/legal_moves.h"
#include "envs/doudizhu/move_type.h"

namespace {

using namespace rlzoo::doudizhu;

// Fails the run (libFuzzer reports it as a crash with the input), naming the broken invariant.
#define check(cond)                                                              \
  do {                                                                           \
    if (!(cond)) {                                                               \
      std::fprintf(stderr, "invariant broken at line %d: %s\n", __LINE__, #cond); \
      std::abort();                                                              \
    }                                                                            \
  } while (0)

// Up to the deck's copies of each rank, from 4 bits per rank of `bits`.
CardCounts clamp_to_deck(std::uint64_t bits) {
  CardCounts c;
  for (int r = 0; r < kNumRanks; ++r) c.set(r, static_cast<int>((bits >> (4 * r)) & 0xF) % (copies_in_deck(r) + 1));
  return c;
}

int highest_trio_rank(CardCounts c) {
  for (int r = kNumRanks - 1; r >= 0; --r)
    if (c.count(r) == 3) return r;
  return -1;
}

bool subset(CardCounts part, CardCounts whole) {
  for (int r = 0; r < kNumRanks; ++r)
    if (part.count(r) > whole.count(r)) return false;
  return true;
}

void text_mode(std::string_view text) {
  CardCounts c;
  try {
    c = parse_cards(text);
  } catch (const rlzoo::UserError&) {
    return;  // refusing bad input with a message is the contract
  }
  check(parse_cards(format_cards(c)) == c);
}

void hand_mode(const std::uint8_t* data, std::size_t size) {
  std::uint64_t a = 0, b = 0;
  for (std::size_t i = 0; i < 8 && i < size; ++i) a |= std::uint64_t{data[i]} << (8 * i);
  for (std::size_t i = 8; i < 16 && i < size; ++i) b |= std::uint64_t{data[i]} << (8 * (i - 8));
  const CardCounts hand = clamp_to_deck(a);
  const CardCounts rival = clamp_to_deck(b);
  // The rival's cards come from another hand: together they fit in one deck (the CLI refuses
  // other inputs, as `rlzoo doudizhu legal-moves` does).
  for (int r = 0; r < kNumRanks; ++r)
    if (hand.count(r) + rival.count(r) > copies_in_deck(r)) return;
  const MoveInfo rival_info = classify_move(rival);
  // The type check below holds for moves that can be played. An arbitrary multiset can be one
  // DouZero's detector reads as a shape it is not (its documented quirks, move_type.h): only
  // the structural checks apply to those.
  std::vector<CardCounts> rival_leads;
  generate_leads(rival, rival_leads);
  const bool playable_rival =
      rival_info.type != MoveType::Wrong && std::find(rival_leads.begin(), rival_leads.end(), rival) != rival_leads.end();
  std::vector<CardCounts> moves;
  generate_legal_moves(hand, rival, moves);
  std::set<CardCounts> seen;
  bool has_pass = false;
  for (const CardCounts m : moves) {
    check(subset(m, hand));
    check(hand.contains(m));  // the bit-trick test agrees with the rank-by-rank one
    check(seen.insert(m).second);
    if (m.empty()) {
      has_pass = true;
      continue;
    }
    if (rival.empty() || !playable_rival) continue;
    const MoveInfo info = classify_move(m);
    if (is_bomb_or_rocket(info.type)) continue;
    // Same shape as the rival, so the same number of cards; the detector may read the answer
    // as another shape (DouZero's quirk: 777888999+TTT answering an airplane of length 3 is a
    // trio chain of length 4), and where it reads the same shape the rank is higher.
    check(m.size() == rival.size());
    // For airplanes with wings the rank that decides is the highest one held three times
    // (DouZero's selector; its detector may report another: legal_moves.h).
    if (info.type == rival_info.type && info.len == rival_info.len) {
      if (info.type == MoveType::AirplaneSolo || info.type == MoveType::AirplanePair)
        check(highest_trio_rank(m) > highest_trio_rank(rival));
      else
        check(info.rank > rival_info.rank);
    }
  }
  check(has_pass == !rival.empty());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  if (data[0] % 2 == 0)
    text_mode(std::string_view(reinterpret_cast<const char*>(data + 1), size - 1));
  else
    hand_mode(data + 1, size - 1);
  return 0;
}
