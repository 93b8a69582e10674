// Cards, hands and moves of DouDizhu, in DouZero's integers at every interface.
//
// Card integers (DouZero's): 3..10 face value, J=11, Q=12, K=13, A=14, 2=17, black joker=20,
// red joker=30. Suits do not exist; the deck holds four of each of the 13 normal ranks and one
// of each joker (54 cards). Strength is the integer order; the gaps (15, 16, 18..29) are what
// keep 2 and the jokers out of chains.
//
// Internally a rank is an index 0..14 (3..A = 0..11, 2 = 12, black joker = 13, red joker = 14)
// and a hand or a move is a multiset, CardCounts: 4 bits of count per rank packed into one
// 64-bit word. Moves therefore cost 8 bytes, compare with ==, and subtracting a move from a
// hand is one integer subtraction: generating legal moves allocates nothing per move.
#pragma once

#include <array>
#include <compare>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace rlzoo::doudizhu {

inline constexpr int kNumRanks = 15;
inline constexpr int kRank2 = 12;         // index of the 2
inline constexpr int kBlackJoker = 13;
inline constexpr int kRedJoker = 14;
inline constexpr int kLastChainRank = 11;  // A: chains and airplanes stop here
inline constexpr int kDeckSize = 54;

// DouZero's card integer of a rank index, and back (-1 for an integer that is not a card).
inline constexpr std::array<int, kNumRanks> kRankCard = {3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 17, 20, 30};
int rank_of_card(int card);
inline constexpr int card_of_rank(int rank) { return kRankCard[static_cast<std::size_t>(rank)]; }
// Copies of a rank in a full deck: 4, or 1 for a joker.
inline constexpr int copies_in_deck(int rank) { return rank >= kBlackJoker ? 1 : 4; }

class CardCounts {
 public:
  constexpr CardCounts() = default;
  static constexpr CardCounts from_bits(std::uint64_t bits) {
    CardCounts c;
    c.bits_ = bits;
    return c;
  }
  // From DouZero card integers in any order. Throws UserError naming the bad card (not a card
  // integer, or more copies than the deck has); `what` names the list in the message.
  static CardCounts from_cards(std::span<const int> cards, std::string_view what = "cards");
  static CardCounts full_deck();

  constexpr int count(int rank) const { return static_cast<int>((bits_ >> (4 * rank)) & 0xF); }
  constexpr void add(int rank, int n = 1) { bits_ += static_cast<std::uint64_t>(n) << (4 * rank); }
  constexpr void remove(int rank, int n = 1) { bits_ -= static_cast<std::uint64_t>(n) << (4 * rank); }
  constexpr void set(int rank, int n) {
    bits_ = (bits_ & ~(std::uint64_t{0xF} << (4 * rank))) | (static_cast<std::uint64_t>(n) << (4 * rank));
  }
  constexpr bool empty() const { return bits_ == 0; }
  constexpr std::uint64_t bits() const { return bits_; }
  // Number of cards.
  int size() const;
  // Number of ranks present.
  int distinct() const;
  // True when every rank has at least as many copies here as in `m` (m is a sub-multiset).
  constexpr bool contains(CardCounts m) const {
    constexpr std::uint64_t kHigh = 0x0888888888888888ULL;  // the top bit of each of the 15 nibbles
    return (((bits_ | kHigh) - m.bits_) & kHigh) == kHigh;
  }
  // Multiset sum and difference (the caller guarantees counts stay within 0..4).
  constexpr CardCounts operator+(CardCounts o) const { return from_bits(bits_ + o.bits_); }
  constexpr CardCounts operator-(CardCounts o) const { return from_bits(bits_ - o.bits_); }
  constexpr CardCounts& operator+=(CardCounts o) {
    bits_ += o.bits_;
    return *this;
  }
  constexpr CardCounts& operator-=(CardCounts o) {
    bits_ -= o.bits_;
    return *this;
  }
  constexpr bool operator==(const CardCounts&) const = default;
  constexpr auto operator<=>(const CardCounts&) const = default;

  // Ascending DouZero card integers (e.g. [3, 3, 17, 30]); empty for a pass.
  std::vector<int> cards() const;
  // Lowest / highest rank index present; -1 when empty.
  int lowest_rank() const;
  int highest_rank() const;
  // The k-th card (0-based) of the ascending card list, as a rank index (DouZero's sorted[k]).
  int rank_at(int k) const;

 private:
  std::uint64_t bits_ = 0;
};

// "33 44 55"-style text: ranks 3-9, T or 10, J, Q, K, A, 2, B (black joker), R (red joker);
// spaces are ignored, case-insensitive; "pass" (or "p", or an empty string) is the empty move.
// Throws UserError saying which character is not a card.
CardCounts parse_cards(std::string_view text);
// Cards grouped by rank, highest first, e.g. "R 2 AA KKK T 5" (T is the 10; "pass" for none).
std::string format_cards(CardCounts c);
// DouZero integers as a JSON-style list, e.g. "[3, 3, 17]".
std::string format_card_list(CardCounts c);

}  // namespace rlzoo::doudizhu
