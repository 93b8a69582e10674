#include "algorithms/dmc/dmc_actor.h"

#include <cstring>

#include "rl/epsilon_greedy.h"
#include "algorithms/dmc/decision_batch.h"
#include "envs/doudizhu/game.h"

namespace rlzoo::dmc {

using namespace doudizhu;

void evaluate_candidate_rows(SeatNets& nets, const std::uint8_t* rows, std::int64_t count, float* q) {
  DecisionBatch batch;
  for (std::int64_t i = 0; i < count;) {
    const std::uint8_t* row = rows + static_cast<std::size_t>(i) * kRowBytes;
    RLZOO_CHECK(row[kRowFirst] == 1, "candidate rows must start with the first row of a decision");
    std::int64_t n = 1;
    while (i + n < count && rows[static_cast<std::size_t>(i + n) * kRowBytes + kRowFirst] == 0) ++n;
    batch.add_encoded(static_cast<Seat>(row[kRowSeat]), row + kRowX, row + kRowZ, row + kRowAction, n, kRowBytes);
    i += n;
  }
  batch.evaluate(nets);
  std::int64_t out = 0;
  for (std::size_t d = 0; d < batch.size(); ++d)
    for (std::int64_t k = 0; k < batch.candidates(d); ++k) q[out++] = batch.q(d, static_cast<std::size_t>(k));
}

void SeatFrames::clear() {
  x.clear();
  a.clear();
  z.clear();
  target.clear();
}

void SeatFrames::append(const SeatFrames& o, std::int64_t from, std::int64_t n, std::int64_t x_dim) {
  const auto f = static_cast<std::size_t>(from), m = static_cast<std::size_t>(n), xd = static_cast<std::size_t>(x_dim);
  x.insert(x.end(), o.x.begin() + f * xd, o.x.begin() + (f + m) * xd);
  a.insert(a.end(), o.a.begin() + f * kCardDim, o.a.begin() + (f + m) * kCardDim);
  z.insert(z.end(), o.z.begin() + f * kHistoryDim, o.z.begin() + (f + m) * kHistoryDim);
  target.insert(target.end(), o.target.begin() + f, o.target.begin() + f + m);
}

namespace {

struct ActorGame {
  Game game{Deal{}};
  FinishedGame frames;
  std::array<std::uint8_t, kMaxStateDim> x{};
  std::array<std::uint8_t, kHistoryDim> z{};
  std::int64_t first_row = -1;  // this step's candidate rows, -1: forced move
};

void start(ActorGame& g, Rng& rng) {
  g.game.reset(Deal::random(rng));
  for (auto& f : g.frames.frames) f.clear();
}

}  // namespace

void run_dmc_actor(const ActorOptions& options, const CandidateEvaluator& evaluate, BoundedQueue<FinishedGame>& out,
                   const StopSource& stop) {
  Rng rng(options.seed);
  std::vector<ActorGame> games(static_cast<std::size_t>(options.games));
  for (auto& g : games) start(g, rng);
  std::vector<std::uint8_t> rows;
  std::vector<float> q;
  while (!stop.stop_requested()) {
    rows.clear();
    std::int64_t count = 0;
    for (auto& g : games) {
      const Seat s = g.game.acting();
      encode_state(g.game, s, g.x.data());
      encode_history(g.game, g.z.data());
      const auto& legal = g.game.legal_moves();
      if (legal.size() == 1) {
        g.first_row = -1;
        continue;
      }
      g.first_row = count;
      rows.resize(static_cast<std::size_t>(count + static_cast<std::int64_t>(legal.size())) * kRowBytes);
      for (std::size_t k = 0; k < legal.size(); ++k) {
        std::uint8_t* row = rows.data() + static_cast<std::size_t>(count++) * kRowBytes;
        row[kRowSeat] = static_cast<std::uint8_t>(seat_index(s));
        row[kRowFirst] = k == 0;
        std::memcpy(row + kRowX, g.x.data(), kMaxStateDim);  // a landlord's tail is already zero
        std::memcpy(row + kRowZ, g.z.data(), kHistoryDim);
        encode_cards(legal[k], row + kRowAction);
      }
    }
    q.resize(static_cast<std::size_t>(count));
    if (count > 0 && !evaluate(rows.data(), count, q.data())) return;
    for (auto& g : games) {
      const Seat s = g.game.acting();
      const auto& legal = g.game.legal_moves();
      std::size_t choice = 0;
      if (g.first_row >= 0) {
        const std::int64_t explored = epsilon_explore(rng, options.epsilon, static_cast<std::int64_t>(legal.size()));
        if (explored >= 0) {
          choice = static_cast<std::size_t>(explored);
        } else {
          const float* gq = q.data() + g.first_row;
          for (std::size_t k = 1; k < legal.size(); ++k)
            if (gq[k] > gq[choice]) choice = k;
        }
      }
      SeatFrames& f = g.frames.frames[static_cast<std::size_t>(seat_index(s))];
      f.x.insert(f.x.end(), g.x.begin(), g.x.begin() + state_dim(s));
      f.z.insert(f.z.end(), g.z.begin(), g.z.end());
      f.a.resize(f.a.size() + kCardDim);
      encode_cards(legal[choice], f.a.data() + f.a.size() - kCardDim);
      g.game.play_index(choice);
      if (!g.game.over()) continue;
      for (Seat seat : kSeats) {
        SeatFrames& sf = g.frames.frames[static_cast<std::size_t>(seat_index(seat))];
        sf.target.assign(sf.a.size() / kCardDim, static_cast<float>(g.game.reward(seat, options.objective)));
      }
      g.frames.landlord_return = g.game.reward(Seat::Landlord, options.objective);
      g.frames.landlord_won = g.game.landlord_won();
      g.frames.bombs = g.game.bombs();
      if (!out.push(std::move(g.frames))) return;
      g.frames = FinishedGame{};
      start(g, rng);
    }
  }
}

}  // namespace rlzoo::dmc
