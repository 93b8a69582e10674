// DMC's actors: each actor thread plays many DouDizhu games at once against itself (all three
// seats), epsilon-greedy over the legal moves with the current Q-networks, and hands every
// finished game's frames to the learner with their Monte-Carlo targets (the game's final
// return for the seat that acted; no discount, no bootstrapping).
//
// Per step an actor encodes the decision of each of its games (the acting seat's state and
// history once, each legal move's 54-value encoding) as candidate rows and gets one Q-value
// per row from a CandidateEvaluator: the shared BatchingServer (one forward pass per seat for
// the rows of all actors) or the actor's own network replica.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <vector>

#include "algorithms/dmc/dmc_config.h"
#include "core/common/rng.h"
#include "core/runtime/bounded_queue.h"
#include "core/runtime/stop.h"
#include "envs/doudizhu/encoding.h"

namespace rlzoo::dmc {

// One candidate row: [seat][first row of its decision][x, zero-padded to 430][z 810][action 54].
inline constexpr std::size_t kRowSeat = 0, kRowFirst = 1, kRowX = 2;
inline constexpr std::size_t kRowZ = kRowX + doudizhu::kMaxStateDim;
inline constexpr std::size_t kRowAction = kRowZ + doudizhu::kHistoryDim;
inline constexpr std::size_t kRowBytes = kRowAction + doudizhu::kCardDim;

// Fills q[i] for each of `rows` candidate rows; returns false when stopped.
using CandidateEvaluator = std::function<bool(const std::uint8_t* rows, std::int64_t count, float* q)>;

struct SeatNets;
// Decodes candidate rows into a DecisionBatch, evaluates it with `nets`, writes q per row.
void evaluate_candidate_rows(SeatNets& nets, const std::uint8_t* rows, std::int64_t count, float* q);

// The frames of one seat: x (state_dim bytes each), the action taken (54), z (810), target.
struct SeatFrames {
  std::vector<std::uint8_t> x, a, z;
  std::vector<float> target;
  std::int64_t size() const { return static_cast<std::int64_t>(target.size()); }
  void clear();
  // Appends frames [from, from + n) of `o`.
  void append(const SeatFrames& o, std::int64_t from, std::int64_t n, std::int64_t x_dim);
};

struct FinishedGame {
  std::array<SeatFrames, 3> frames;  // by seat
  double landlord_return = 0;        // the objective's return
  bool landlord_won = false;
  int bombs = 0;
};

struct ActorOptions {
  int games = 32;  // concurrent games
  double epsilon = 0.01;
  doudizhu::Objective objective = doudizhu::Objective::Adp;
  std::uint64_t seed = 0;
};

// Runs until `stop` or the queue closes: plays, evaluates through `evaluate`, pushes each
// finished game to `out`.
void run_dmc_actor(const ActorOptions& options, const CandidateEvaluator& evaluate, BoundedQueue<FinishedGame>& out,
                   const StopSource& stop);

}  // namespace rlzoo::dmc
