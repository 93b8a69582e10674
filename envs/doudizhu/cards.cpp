#include "envs/doudizhu/cards.h"

#include <cctype>

#include <fmt/format.h>

#include "core/common/error.h"

namespace rlzoo::doudizhu {

int rank_of_card(int card) {
  if (card >= 3 && card <= 14) return card - 3;
  if (card == 17) return kRank2;
  if (card == 20) return kBlackJoker;
  if (card == 30) return kRedJoker;
  return -1;
}

CardCounts CardCounts::from_cards(std::span<const int> cards, std::string_view what) {
  CardCounts c;
  for (std::size_t i = 0; i < cards.size(); ++i) {
    const int rank = rank_of_card(cards[i]);
    if (rank < 0)
      throw UserError(fmt::format("{}[{}] = {} is not a card (DouZero integers: 3..14, 17 for 2, 20 and 30 for the "
                                  "jokers)",
                                  what, i, cards[i]));
    if (c.count(rank) >= copies_in_deck(rank))
      throw UserError(fmt::format("{} hold {} more than {} time{} (the deck has {})", what, cards[i],
                                  copies_in_deck(rank), copies_in_deck(rank) == 1 ? "" : "s", copies_in_deck(rank)));
    c.add(rank);
  }
  return c;
}

CardCounts CardCounts::full_deck() {
  CardCounts c;
  for (int r = 0; r < kNumRanks; ++r) c.add(r, copies_in_deck(r));
  return c;
}

int CardCounts::size() const {
  // Sum of the 4-bit fields: pairwise into bytes, then one multiply adds the bytes.
  const std::uint64_t bytes = (bits_ & 0x0F0F0F0F0F0F0F0FULL) + ((bits_ >> 4) & 0x0F0F0F0F0F0F0F0FULL);
  return static_cast<int>((bytes * 0x0101010101010101ULL) >> 56);
}

int CardCounts::distinct() const {
  std::uint64_t nonzero = bits_ | (bits_ >> 1) | (bits_ >> 2);  // counts are <= 4: bits 0..2 suffice
  nonzero &= 0x1111111111111111ULL;
  return __builtin_popcountll(nonzero);
}

std::vector<int> CardCounts::cards() const {
  std::vector<int> out;
  out.reserve(static_cast<std::size_t>(size()));
  for (int r = 0; r < kNumRanks; ++r)
    for (int k = count(r); k > 0; --k) out.push_back(card_of_rank(r));
  return out;
}

int CardCounts::lowest_rank() const { return bits_ == 0 ? -1 : __builtin_ctzll(bits_) / 4; }

int CardCounts::highest_rank() const { return bits_ == 0 ? -1 : (63 - __builtin_clzll(bits_)) / 4; }

int CardCounts::rank_at(int k) const {
  for (int r = 0; r < kNumRanks; ++r) {
    k -= count(r);
    if (k < 0) return r;
  }
  return -1;
}

CardCounts parse_cards(std::string_view text) {
  std::string lower;
  for (char ch : text)
    if (!std::isspace(static_cast<unsigned char>(ch))) lower.push_back(static_cast<char>(std::tolower(ch)));
  if (lower.empty() || lower == "pass" || lower == "p") return {};
  CardCounts c;
  for (std::size_t i = 0; i < lower.size(); ++i) {
    const char ch = lower[i];
    int rank = -1;
    if (ch >= '3' && ch <= '9') rank = ch - '3';
    else if (ch == '1' && i + 1 < lower.size() && lower[i + 1] == '0') rank = 7, ++i;
    else if (ch == 't') rank = 7;
    else if (ch == 'j') rank = 8;
    else if (ch == 'q') rank = 9;
    else if (ch == 'k') rank = 10;
    else if (ch == 'a') rank = 11;
    else if (ch == '2') rank = kRank2;
    else if (ch == 'b') rank = kBlackJoker;
    else if (ch == 'r') rank = kRedJoker;
    if (rank < 0)
      throw UserError(fmt::format("'{}' in \"{}\" is not a card (use 3-9, T or 10, J, Q, K, A, 2, B for the black "
                                  "joker, R for the red joker, or pass)",
                                  std::string(1, ch), text));
    if (c.count(rank) >= copies_in_deck(rank))
      throw UserError(fmt::format("\"{}\" holds more {} than the deck has", text, format_cards(CardCounts::from_bits(
                                                                                       std::uint64_t{1} << (4 * rank)))));
    c.add(rank);
  }
  return c;
}

std::string format_cards(CardCounts c) {
  static constexpr std::array<const char*, kNumRanks> kNames = {"3", "4", "5", "6", "7", "8", "9", "T",
                                                                "J", "Q", "K", "A", "2", "B", "R"};
  if (c.empty()) return "pass";
  std::string out;
  for (int r = kNumRanks - 1; r >= 0; --r) {
    if (c.count(r) == 0) continue;
    if (!out.empty()) out.push_back(' ');
    for (int k = 0; k < c.count(r); ++k) out += kNames[static_cast<std::size_t>(r)];
  }
  return out;
}

std::string format_card_list(CardCounts c) { return fmt::format("[{}]", fmt::join(c.cards(), ", ")); }

}  // namespace rlzoo::doudizhu
