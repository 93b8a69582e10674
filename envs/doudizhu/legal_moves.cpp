#include "envs/doudizhu/legal_moves.h"

#include <array>

namespace rlzoo::doudizhu {
namespace {

constexpr CardCounts of(int rank, int n) { return CardCounts::from_bits(static_cast<std::uint64_t>(n) << (4 * rank)); }

// The highest rank appearing exactly three times (DouZero's airplane rank), -1 if none.
int highest_trio_rank(CardCounts m) {
  for (int r = kNumRanks - 1; r >= 0; --r)
    if (m.count(r) == 3) return r;
  return -1;
}

int highest_quad_rank(CardCounts m) {
  for (int r = kNumRanks - 1; r >= 0; --r)
    if (m.count(r) == 4) return r;
  return -1;
}

// Rank sets as 15-bit masks (bit r = rank index r), iterated lowest rank first.
using RankMask = std::uint32_t;
constexpr RankMask kChainRanks = (1u << (kLastChainRank + 1)) - 1;  // 3..A
constexpr RankMask kPairableRanks = (1u << (kRank2 + 1)) - 1;      // 3..2 (no jokers)
constexpr RankMask bit(int r) { return 1u << r; }
// Ranks strictly above `r` (r = -1: all).
constexpr RankMask above(int r) { return r < 0 ? ~0u : ~((2u << r) - 1); }
template <class F>
void for_each_rank(RankMask m, F&& f) {
  for (; m; m &= m - 1) f(__builtin_ctz(m));
}
// Lowest ranks of the runs of at least `len` consecutive ranks of m.
constexpr RankMask run_starts(RankMask m, int len) {
  RankMask r = m;
  for (int k = 1; k < len; ++k) r &= m >> k;
  return r;
}

// Bit 4r of x (one flag per rank nibble) -> bit r.
constexpr RankMask gather_nibble_flags(std::uint64_t x) {
  x = (x | x >> 3) & 0x0303030303030303ULL;
  x = (x | x >> 6) & 0x000F000F000F000FULL;
  x = (x | x >> 12) & 0x000000FF000000FFULL;
  return static_cast<RankMask>((x | x >> 24) & 0xFFFF);
}

class Generator {
 public:
  Generator(CardCounts hand, std::vector<CardCounts>& out) : hand_(hand), out_(out) {
    constexpr std::uint64_t kLow = 0x1111111111111111ULL;  // bit 0 of every nibble
    const std::uint64_t b = hand.bits();                     // counts are 0..4: bits 0-2 of a nibble
    at_least_[1] = gather_nibble_flags((b | b >> 1 | b >> 2) & kLow);
    at_least_[2] = gather_nibble_flags((b >> 1 | b >> 2) & kLow);
    at_least_[3] = gather_nibble_flags(((b & b >> 1) | b >> 2) & kLow);
    at_least_[4] = gather_nibble_flags((b >> 2) & kLow);
  }

  // Moves of one rank: width 1 (solos, jokers included), 2 or 3 (no jokers), main rank > above.
  void sets(int width, int above_rank) {
    const RankMask m = at_least_[width] & above(above_rank) & (width == 1 ? ~0u : kPairableRanks);
    for_each_rank(m, [&](int r) { out_.push_back(of(r, width)); });
  }
  void bombs(int above_rank) {
    for_each_rank(at_least_[4] & above(above_rank), [&](int r) { out_.push_back(of(r, 4)); });
  }
  void rocket() {
    if ((at_least_[1] & (bit(kBlackJoker) | bit(kRedJoker))) == (bit(kBlackJoker) | bit(kRedJoker)))
      out_.push_back(of(kBlackJoker, 1) + of(kRedJoker, 1));
  }
  // 3+1 (kicker_width 1) or 3+2 (kicker_width 2), trio rank > above.
  void trio_with_kicker(int kicker_width, int above_rank) {
    const RankMask kickers = at_least_[kicker_width] & (kicker_width == 1 ? ~0u : kPairableRanks);
    for_each_rank(at_least_[3] & kPairableRanks & above(above_rank), [&](int t) {
      const CardCounts trio = of(t, 3);
      for_each_rank(kickers & ~bit(t), [&](int k) { out_.push_back(trio + of(k, kicker_width)); });
    });
  }
  // Chains of `width` cards per rank. len > 0: that length only, lowest rank > above;
  // len == 0: every length >= min_len, by length then lowest rank.
  void chains(int width, int min_len, int len, int above_rank) {
    const RankMask m = at_least_[width] & kChainRanks;
    const int lo = len > 0 ? len : min_len, hi = len > 0 ? len : kLastChainRank + 1;
    RankMask starts = run_starts(m, lo);
    for (int l = lo; l <= hi && starts; ++l) {
      for_each_rank(starts & above(above_rank), [&](int s) { out_.push_back(body(s, l, width)); });
      starts &= m >> l;  // runs of at least l + 1
    }
  }
  // Airplanes of `len` trios (len == 0: lengths 2..5) with `len` solo wings, airplane rank >
  // above. A multiset with several decompositions (a wing trio next to the body) is made
  // once, from its highest body; when leading, one that is a trio chain is left to chains().
  void airplanes_with_solos(int len, int above_rank, bool leading) {
    const RankMask trios = at_least_[3] & kChainRanks;
    const int lo = len > 0 ? len : 2, hi = len > 0 ? len : 5;
    RankMask starts = run_starts(trios, lo);
    for (int l = lo; l <= hi && starts; ++l) {
      for_each_rank(starts, [&](int s) {
        body_ = body(s, l, 3);
        body_lo_ = s, body_hi_ = s + l - 1, above_ = above_rank, leading_ = leading;
        wings(at_least_[1] & ~(((2u << body_hi_) - 1) & ~((1u << s) - 1)), l, CardCounts{});
      });
      starts &= trios >> l;
    }
  }
  void airplanes_with_pairs(int len, int above_rank) {
    const RankMask trios = at_least_[3] & kChainRanks;
    const int lo = len > 0 ? len : 2, hi = len > 0 ? len : 4;
    RankMask starts = run_starts(trios, lo);
    for (int l = lo; l <= hi && starts; ++l) {
      for_each_rank(starts, [&](int s) {
        const int top = s + l - 1;
        if (top <= above_rank) return;
        const RankMask body_mask = ((2u << top) - 1) & ~((1u << s) - 1);
        pair_wings(at_least_[2] & kPairableRanks & ~body_mask, l, body(s, l, 3));
      });
      starts &= trios >> l;
    }
  }
  void four_with_solos(int above_rank) {
    for_each_rank(at_least_[4] & above(above_rank), [&](int q) {
      const CardCounts quad = of(q, 4);
      const RankMask others = at_least_[1] & ~bit(q);
      for_each_rank(others, [&](int a) {
        if (at_least_[2] & bit(a)) out_.push_back(quad + of(a, 2));
        for_each_rank(others & above(a), [&](int b) { out_.push_back(quad + of(a, 1) + of(b, 1)); });
      });
    });
  }
  void four_with_pairs(int above_rank) {
    for_each_rank(at_least_[4] & above(above_rank), [&](int q) {
      const CardCounts quad = of(q, 4);
      const RankMask pairs = at_least_[2] & kPairableRanks & ~bit(q);
      for_each_rank(pairs, [&](int a) {
        for_each_rank(pairs & above(a), [&](int b) { out_.push_back(quad + of(a, 2) + of(b, 2)); });
      });
    });
  }

 private:
  int c(int r) const { return hand_.count(r); }
  static CardCounts body(int s, int l, int width) {
    CardCounts b;
    for (int r = s; r < s + l; ++r) b.add(r, width);
    return b;
  }
  // Solo wings: every multiset of `left` more cards from the ranks in `ranks` (outside the body).
  void wings(RankMask ranks, int left, CardCounts w) {
    if (left == 0) {
      if (body_hi_ + 1 <= kLastChainRank && w.count(body_hi_ + 1) == 3) return;  // made from the higher body
      if (leading_ && body_lo_ > 0 && w == of(body_lo_ - 1, 3)) return;         // the trio chain one longer
      const int rank = std::max(body_hi_, highest_trio_rank(w));
      if (rank > above_) out_.push_back(body_ + w);
      return;
    }
    for_each_rank(ranks, [&](int r) {
      // More copies of the low rank first: the wings then come in ascending order of their
      // sorted card lists ([3,3] before [3,5] before [5,...]).
      const RankMask rest = ranks & above(r);
      for (int k = std::min(c(r), left); k >= 1; --k) wings(rest, left - k, w + of(r, k));
    });
  }
  void pair_wings(RankMask ranks, int left, CardCounts m) {
    if (left == 0) {
      out_.push_back(m);
      return;
    }
    for_each_rank(ranks, [&](int r) { pair_wings(ranks & above(r), left - 1, m + of(r, 2)); });
  }

  CardCounts hand_;
  std::vector<CardCounts>& out_;
  std::array<RankMask, 5> at_least_{};  // at_least_[w]: ranks with >= w cards (w = 1..4)
  CardCounts body_;
  int body_lo_ = 0, body_hi_ = 0, above_ = -1;
  bool leading_ = false;
};

}  // namespace

void generate_leads(CardCounts hand, std::vector<CardCounts>& out) {
  out.clear();
  Generator g(hand, out);
  g.sets(1, -1);
  g.sets(2, -1);
  g.sets(3, -1);
  g.bombs(-1);
  g.rocket();
  g.trio_with_kicker(1, -1);
  g.trio_with_kicker(2, -1);
  g.chains(1, 5, 0, -1);
  g.chains(2, 3, 0, -1);
  g.chains(3, 2, 0, -1);
  g.airplanes_with_solos(0, -1, /*leading=*/true);
  g.airplanes_with_pairs(0, -1);
  g.four_with_solos(-1);
  g.four_with_pairs(-1);
}

void generate_legal_moves(CardCounts hand, CardCounts rival, std::vector<CardCounts>& out) {
  if (rival.empty()) return generate_leads(hand, out);
  generate_legal_moves(hand, rival, classify_move(rival), out);
}

void generate_legal_moves(CardCounts hand, CardCounts rival, const MoveInfo& info, std::vector<CardCounts>& out) {
  if (rival.empty()) return generate_leads(hand, out);
  out.clear();
  Generator g(hand, out);
  const int rank = info.rank >= 0 ? rank_of_card(info.rank) : -1;
  switch (info.type) {
    case MoveType::Single: g.sets(1, rank); break;
    case MoveType::Pair: g.sets(2, rank); break;
    case MoveType::Triple: g.sets(3, rank); break;
    case MoveType::Bomb:
      g.bombs(rank);
      g.rocket();
      break;
    case MoveType::Rocket: break;
    case MoveType::TrioSolo: g.trio_with_kicker(1, rival.rank_at(1)); break;
    case MoveType::TrioPair: g.trio_with_kicker(2, rival.rank_at(2)); break;
    case MoveType::SoloChain: g.chains(1, 5, info.len, rival.lowest_rank()); break;
    case MoveType::PairChain: g.chains(2, 3, info.len, rival.lowest_rank()); break;
    case MoveType::TrioChain: g.chains(3, 2, info.len, rival.lowest_rank()); break;
    case MoveType::AirplaneSolo: g.airplanes_with_solos(info.len, highest_trio_rank(rival), false); break;
    case MoveType::AirplanePair: g.airplanes_with_pairs(info.len, highest_trio_rank(rival)); break;
    case MoveType::FourTwoSolo: g.four_with_solos(rival.rank_at(2)); break;
    case MoveType::FourTwoPair: g.four_with_pairs(highest_quad_rank(rival)); break;
    case MoveType::Pass:
    case MoveType::Wrong: break;
  }
  if (!is_bomb_or_rocket(info.type)) {
    g.bombs(-1);
    g.rocket();
  }
  out.push_back(CardCounts{});  // pass
}

std::vector<CardCounts> legal_moves(CardCounts hand, CardCounts rival) {
  std::vector<CardCounts> out;
  generate_legal_moves(hand, rival, out);
  return out;
}

}  // namespace rlzoo::doudizhu
