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

class Generator {
 public:
  Generator(CardCounts hand, std::vector<CardCounts>& out) : hand_(hand), out_(out) {
    for (int r = 0; r < kNumRanks; ++r) c_[static_cast<std::size_t>(r)] = hand.count(r);
  }

  // Moves of one rank: width 1 (solos, jokers included), 2 or 3 (no jokers), main rank > above.
  void sets(int width, int above) {
    const int last = width == 1 ? kNumRanks - 1 : kRank2;
    for (int r = above + 1; r <= last; ++r)
      if (c(r) >= width) out_.push_back(of(r, width));
  }
  void bombs(int above) {
    for (int r = above + 1; r <= kRank2; ++r)
      if (c(r) == 4) out_.push_back(of(r, 4));
  }
  void rocket() {
    if (c(kBlackJoker) && c(kRedJoker)) out_.push_back(of(kBlackJoker, 1) + of(kRedJoker, 1));
  }
  // 3+1 (kicker_width 1) or 3+2 (kicker_width 2), trio rank > above.
  void trio_with_kicker(int kicker_width, int above) {
    const int last_kicker = kicker_width == 1 ? kNumRanks - 1 : kRank2;
    for (int t = above + 1; t <= kRank2; ++t) {
      if (c(t) < 3) continue;
      for (int k = 0; k <= last_kicker; ++k)
        if (k != t && c(k) >= kicker_width) out_.push_back(of(t, 3) + of(k, kicker_width));
    }
  }
  // Chains of `width` cards per rank. len > 0: that length only, lowest rank > above;
  // len == 0: every length >= min_len, by length then lowest rank.
  void chains(int width, int min_len, int len, int above) {
    std::array<int, kLastChainRank + 2> run{};  // run[r]: consecutive ranks from r with >= width cards
    for (int r = kLastChainRank; r >= 0; --r)
      run[static_cast<std::size_t>(r)] = c(r) >= width ? run[static_cast<std::size_t>(r + 1)] + 1 : 0;
    const int lo = len > 0 ? len : min_len, hi = len > 0 ? len : kLastChainRank + 1;
    for (int l = lo; l <= hi; ++l)
      for (int s = above + 1; s + l - 1 <= kLastChainRank; ++s)
        if (run[static_cast<std::size_t>(s)] >= l) out_.push_back(body(s, l, width));
  }
  // Airplanes of `len` trios (len == 0: lengths 2..5) with `len` solo wings, airplane rank >
  // above. A multiset with several decompositions (a wing trio next to the body) is made
  // once, from its highest body; when leading, one that is a trio chain is left to chains().
  void airplanes_with_solos(int len, int above, bool leading) {
    const int lo = len > 0 ? len : 2, hi = len > 0 ? len : 5;
    for (int l = lo; l <= hi; ++l)
      for (int s = 0; s + l - 1 <= kLastChainRank; ++s) {
        if (!trio_run(s, l)) continue;
        const int top = s + l - 1;
        body_ = body(s, l, 3);
        body_lo_ = s, body_hi_ = top, above_ = above, leading_ = leading;
        wings(0, l, CardCounts{});
      }
  }
  void airplanes_with_pairs(int len, int above) {
    const int lo = len > 0 ? len : 2, hi = len > 0 ? len : 4;
    for (int l = lo; l <= hi; ++l)
      for (int s = 0; s + l - 1 <= kLastChainRank; ++s) {
        if (!trio_run(s, l) || s + l - 1 <= above) continue;
        pair_wings(0, l, body(s, l, 3), s, s + l - 1);
      }
  }
  void four_with_solos(int above) {
    for (int q = above + 1; q <= kRank2; ++q) {
      if (c(q) != 4) continue;
      for (int a = 0; a < kNumRanks; ++a) {
        if (a == q || c(a) == 0) continue;
        if (c(a) >= 2) out_.push_back(of(q, 4) + of(a, 2));
        for (int b = a + 1; b < kNumRanks; ++b)
          if (b != q && c(b) > 0) out_.push_back(of(q, 4) + of(a, 1) + of(b, 1));
      }
    }
  }
  void four_with_pairs(int above) {
    for (int q = above + 1; q <= kRank2; ++q) {
      if (c(q) != 4) continue;
      for (int a = 0; a <= kRank2; ++a) {
        if (a == q || c(a) < 2) continue;
        for (int b = a + 1; b <= kRank2; ++b)
          if (b != q && c(b) >= 2) out_.push_back(of(q, 4) + of(a, 2) + of(b, 2));
      }
    }
  }

 private:
  int c(int r) const { return c_[static_cast<std::size_t>(r)]; }
  static CardCounts body(int s, int l, int width) {
    CardCounts b;
    for (int r = s; r < s + l; ++r) b.add(r, width);
    return b;
  }
  bool trio_run(int s, int l) const {
    for (int r = s; r < s + l; ++r)
      if (c(r) < 3) return false;
    return true;
  }
  // Solo wings: every multiset of `left` more cards from ranks >= r outside the body.
  void wings(int r, int left, CardCounts w) {
    if (left == 0) {
      if (body_hi_ + 1 <= kLastChainRank && w.count(body_hi_ + 1) == 3) return;  // made from the higher body
      if (leading_ && body_lo_ > 0 && w == of(body_lo_ - 1, 3)) return;         // the trio chain one longer
      const int rank = std::max(body_hi_, highest_trio_rank(w));
      if (rank > above_) out_.push_back(body_ + w);
      return;
    }
    for (; r < kNumRanks; ++r) {
      if (r >= body_lo_ && r <= body_hi_) continue;
      const int most = std::min(c(r), left);
      // More copies of the low rank first: the wings then come in ascending order of their
      // sorted card lists ([3,3] before [3,5] before [5,...]).
      for (int k = most; k >= 1; --k) wings(r + 1, left - k, w + of(r, k));
    }
  }
  void pair_wings(int r, int left, CardCounts m, int lo, int hi) {
    if (left == 0) {
      out_.push_back(m);
      return;
    }
    for (; r <= kRank2; ++r)
      if ((r < lo || r > hi) && c(r) >= 2) pair_wings(r + 1, left - 1, m + of(r, 2), lo, hi);
  }

  CardCounts hand_;
  std::vector<CardCounts>& out_;
  std::array<int, kNumRanks> c_{};
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
