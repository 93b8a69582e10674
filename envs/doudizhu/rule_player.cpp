#include "envs/doudizhu/rule_player.h"

#include <cstdint>

#include "core/common/error.h"

namespace rlzoo::doudizhu {
namespace {

constexpr std::size_t kNone = static_cast<std::size_t>(-1);

constexpr std::uint64_t nibble(int rank) { return std::uint64_t{0xF} << (4 * rank); }

// Bits of the protected cards of `hand` (see the header): whole nibbles, so that a move
// touches them exactly when (move & mask) != 0.
std::uint64_t protected_mask(CardCounts hand) {
  std::uint64_t mask = 0;
  for (int r = 0; r <= kRank2; ++r)
    if (hand.count(r) == 4) mask |= nibble(r);
  if (hand.count(kBlackJoker) == 1 && hand.count(kRedJoker) == 1) mask |= nibble(kBlackJoker) | nibble(kRedJoker);
  return mask;
}

bool touches(CardCounts move, std::uint64_t mask) { return (move.bits() & mask) != 0; }

// The lowest of the ranks the move holds the most copies of.
int main_rank(CardCounts move) {
  int best = -1, most = 0;
  for (int r = 0; r < kNumRanks; ++r)
    if (const int c = move.count(r); c > most) most = c, best = r;
  return best;
}

int broken_ranks(CardCounts move, CardCounts hand) {
  int n = 0;
  for (int r = 0; r < kNumRanks; ++r) {
    const int c = move.count(r);
    n += c > 0 && c < hand.count(r);
  }
  return n;
}

bool is_bomb_or_rocket_move(CardCounts move) {
  constexpr CardCounts kRocket = CardCounts::from_bits((std::uint64_t{1} << (4 * kBlackJoker)) |
                                                       (std::uint64_t{1} << (4 * kRedJoker)));
  return move == kRocket || (move.distinct() == 1 && move.size() == 4);
}

// The seat that made the move to beat: the last non-pass move of the history.
Seat rival_seat(const Game& g) {
  const auto h = g.history();
  for (std::size_t i = h.size(); i-- > 0;)
    if (!h[i].empty()) return kSeats[i % kNumSeats];
  RLZOO_CHECK(false, "rival_seat() with nothing to beat");
  return Seat::Landlord;
}

// Index of the best move touching no protected card under (more cards if `by_size`), lower
// main rank, fewer broken ranks, earlier index; npos when there is none. Skips the pass.
std::size_t best_plain_move(const std::vector<CardCounts>& legal, CardCounts hand, std::uint64_t mask,
                            bool by_size) {
  std::size_t best = kNone;
  int best_size = 0, best_rank = 0, best_broken = 0;
  for (std::size_t i = 0; i < legal.size(); ++i) {
    const CardCounts m = legal[i];
    if (m.empty() || touches(m, mask)) continue;
    const int size = by_size ? m.size() : 0;
    if (best != kNone && size < best_size) continue;
    const int rank = main_rank(m);
    if (best != kNone && size == best_size && rank > best_rank) continue;
    const int broken = broken_ranks(m, hand);
    if (best != kNone && size == best_size && rank == best_rank && broken >= best_broken) continue;
    best = i, best_size = size, best_rank = rank, best_broken = broken;
  }
  return best;
}

std::size_t first_bomb(const std::vector<CardCounts>& legal) {
  for (std::size_t i = 0; i < legal.size(); ++i)
    if (is_bomb_or_rocket_move(legal[i])) return i;
  return kNone;
}

std::size_t pass_index(const std::vector<CardCounts>& legal) {
  RLZOO_CHECK(!legal.empty() && legal.back().empty(), "no pass among the legal answers");
  return legal.size() - 1;  // the pass is always last when answering
}

}  // namespace

std::size_t RulePlayer::choose(Game& g) {
  const std::vector<CardCounts>& legal = g.legal_moves();
  RLZOO_CHECK(!legal.empty(), "RulePlayer asked to move in a finished game");
  const Seat me = g.acting();
  const CardCounts hand = g.hand(me);

  // 1. Last cards.
  for (std::size_t i = 0; i < legal.size(); ++i)
    if (legal[i] == hand) return i;

  const std::uint64_t mask = protected_mask(hand);

  // 2. Leading.
  if (g.rival_move().empty()) {
    if (const std::size_t i = best_plain_move(legal, hand, mask, /*by_size=*/true); i != kNone) return i;
    const std::size_t bomb = first_bomb(legal);
    return bomb != kNone ? bomb : 0;
  }

  const Seat rival = rival_seat(g);
  // 4. The partner's move.
  if (is_peasant(me) && rival == partner(me)) {
    if (me == Seat::LandlordUp && g.hand(Seat::Landlord).size() <= kLandlordDanger) {
      const std::size_t i = best_plain_move(legal, hand, mask, /*by_size=*/false);
      if (i != kNone) return i;
    }
    return pass_index(legal);
  }

  // 3. An opponent's move.
  if (const std::size_t i = best_plain_move(legal, hand, mask, /*by_size=*/false); i != kNone) return i;
  if (g.hand(rival).size() <= kBombThreshold)
    if (const std::size_t bomb = first_bomb(legal); bomb != kNone) return bomb;
  return pass_index(legal);
}

}  // namespace rlzoo::doudizhu
