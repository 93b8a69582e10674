#include "envs/doudizhu/move_type.h"

#include <array>

namespace rlzoo::doudizhu {
namespace {

// Card integers of consecutive rank indices differ by 1 only within 3..A, so DouZero's
// "integers differ by 1" test is "rank indices differ by 1, all <= A". (A..2 differ by 3.)
bool consecutive(const int* ranks, int n) {
  for (int i = 0; i + 1 < n; ++i)
    if (ranks[i + 1] != ranks[i] + 1 || ranks[i + 1] > kLastChainRank) return false;
  return true;
}

MoveInfo info(MoveType t, int rank_index = -1, int len = 0) {
  return {t, rank_index < 0 ? -1 : card_of_rank(rank_index), len};
}

}  // namespace

MoveInfo classify_move(CardCounts move) {
  const int size = move.size();
  if (size == 0) return info(MoveType::Pass);
  // Ranks present (ascending) and how many ranks have each count.
  std::array<int, kNumRanks> ranks{};
  std::array<int, 5> with_count{};
  int n = 0;
  for (int r = 0; r < kNumRanks; ++r)
    if (const int c = move.count(r); c > 0) {
      ranks[static_cast<std::size_t>(n++)] = r;
      ++with_count[static_cast<std::size_t>(c)];
    }
  if (size == 1) return info(MoveType::Single, ranks[0]);
  if (size == 2) {
    if (n == 1) return info(MoveType::Pair, ranks[0]);
    if (move.count(kBlackJoker) == 1 && move.count(kRedJoker) == 1) return info(MoveType::Rocket);
    return info(MoveType::Wrong);
  }
  if (size == 3) return n == 1 ? info(MoveType::Triple, ranks[0]) : info(MoveType::Wrong);
  if (size == 4) {
    if (n == 1) return info(MoveType::Bomb, ranks[0]);
    if (n == 2 && with_count[3] == 1) return info(MoveType::TrioSolo, move.rank_at(1));
    return info(MoveType::Wrong);
  }
  // A solo chain: all cards distinct and consecutive (so <= A).
  if (n == size && consecutive(ranks.data(), n)) return info(MoveType::SoloChain, ranks[0], n);
  if (size == 5) return n == 2 ? info(MoveType::TrioPair, move.rank_at(2)) : info(MoveType::Wrong);
  if (size == 6 && (n == 2 || n == 3) && with_count[4] == 1 && (with_count[2] == 1 || with_count[1] == 2))
    return info(MoveType::FourTwoSolo, move.rank_at(2));
  if (size == 8 && (((n == 3 || n == 2) && with_count[4] == 1 && with_count[2] == 2) || with_count[4] == 2)) {
    int quad = -1;
    for (int i = 0; i < n; ++i)
      if (move.count(ranks[static_cast<std::size_t>(i)]) == 4) quad = ranks[static_cast<std::size_t>(i)];
    return info(MoveType::FourTwoPair, quad);
  }
  if (n == with_count[2] && consecutive(ranks.data(), n)) return info(MoveType::PairChain, ranks[0], n);
  if (n == with_count[3] && consecutive(ranks.data(), n)) return info(MoveType::TrioChain, ranks[0], n);
  if (with_count[3] >= 2) {
    if (with_count[4] > 0) return info(MoveType::Wrong);
    std::array<int, kNumRanks> trios{};
    int t = 0;
    for (int i = 0; i < n; ++i)
      if (move.count(ranks[static_cast<std::size_t>(i)]) == 3) trios[static_cast<std::size_t>(t++)] = ranks[static_cast<std::size_t>(i)];
    if (consecutive(trios.data(), t)) {
      if (t == with_count[1] + 2 * with_count[2]) return info(MoveType::AirplaneSolo, trios[0], t);
      if (t == with_count[2] && n == 2 * t) return info(MoveType::AirplanePair, trios[0], t);
    }
    if (t == 4) {
      if (consecutive(trios.data() + 1, 3)) return info(MoveType::AirplaneSolo, trios[1], 3);
      if (consecutive(trios.data(), 3)) return info(MoveType::AirplaneSolo, trios[0], 3);
    }
  }
  return info(MoveType::Wrong);
}

std::string_view move_type_name(MoveType t) {
  static constexpr std::array<std::string_view, 16> kNames = {
      "TYPE_0_PASS",          "TYPE_1_SINGLE",        "TYPE_2_PAIR",          "TYPE_3_TRIPLE",
      "TYPE_4_BOMB",          "TYPE_5_KING_BOMB",     "TYPE_6_3_1",           "TYPE_7_3_2",
      "TYPE_8_SERIAL_SINGLE", "TYPE_9_SERIAL_PAIR",   "TYPE_10_SERIAL_TRIPLE", "TYPE_11_SERIAL_3_1",
      "TYPE_12_SERIAL_3_2",   "TYPE_13_4_2",          "TYPE_14_4_22",         "TYPE_15_WRONG"};
  return kNames[static_cast<std::size_t>(t)];
}

bool is_bomb_or_rocket(MoveType t) { return t == MoveType::Bomb || t == MoveType::Rocket; }

}  // namespace rlzoo::doudizhu
