#include "envs/doudizhu/encoding.h"

#include <algorithm>

namespace rlzoo::doudizhu {
namespace {

template <typename T>
T* one_hot(int size, int hot, T* out) {
  std::fill(out, out + size, T{0});
  if (hot >= 0 && hot < size) out[hot] = T{1};
  return out + size;
}

template <typename T>
T* cards(CardCounts c, T* out) {
  encode_cards(c, out);
  return out + kCardDim;
}

}  // namespace

template <typename T>
void encode_cards(CardCounts c, T* out) {
  std::fill(out, out + kCardDim, T{0});
  for (int r = 0; r <= kRank2; ++r)
    for (int k = 0; k < c.count(r); ++k) out[4 * r + k] = T{1};
  if (c.count(kBlackJoker)) out[52] = T{1};
  if (c.count(kRedJoker)) out[53] = T{1};
}

template <typename T>
void encode_state(const Game& g, Seat s, T* out) {
  CardCounts others;
  for (Seat o : kSeats)
    if (o != s) others += g.hand(o);
  out = cards(g.hand(s), out);
  out = cards(others, out);
  if (s == Seat::Landlord) {
    out = cards(g.rival_move(), out);
    out = cards(g.played(Seat::LandlordUp), out);
    out = cards(g.played(Seat::LandlordDown), out);
    out = one_hot(17, g.hand(Seat::LandlordUp).size() - 1, out);
    out = one_hot(17, g.hand(Seat::LandlordDown).size() - 1, out);
  } else {
    const Seat mate = partner(s);
    out = cards(g.played(Seat::Landlord), out);
    out = cards(g.played(mate), out);
    out = cards(g.rival_move(), out);
    out = cards(g.last_action(Seat::Landlord), out);
    out = cards(g.last_action(mate), out);
    out = one_hot(20, g.hand(Seat::Landlord).size() - 1, out);
    out = one_hot(17, g.hand(mate).size() - 1, out);
  }
  one_hot(15, g.bombs(), out);
}

template <typename T>
void encode_history(const Game& g, T* out) {
  const auto h = g.history();
  const std::size_t n = std::min<std::size_t>(h.size(), kHistoryMoves);
  const std::size_t pad = kHistoryMoves - n;
  std::fill(out, out + pad * kCardDim, T{0});
  for (std::size_t i = 0; i < n; ++i) encode_cards(h[h.size() - n + i], out + (pad + i) * kCardDim);
}

template void encode_cards<std::uint8_t>(CardCounts, std::uint8_t*);
template void encode_cards<float>(CardCounts, float*);
template void encode_state<std::uint8_t>(const Game&, Seat, std::uint8_t*);
template void encode_state<float>(const Game&, Seat, float*);
template void encode_history<std::uint8_t>(const Game&, std::uint8_t*);
template void encode_history<float>(const Game&, float*);

}  // namespace rlzoo::doudizhu
