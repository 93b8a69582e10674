// DouDizhu-v0: the three-player card game (game.h, DouZero's rules) as a turn-based
// multi-agent env.
//
//   Agents       3, in play order: 0 landlord, 1 landlord_down, 2 landlord_up.
//                info().acting_agent is the seat to act.
//   Observation  uint8 Box [1240]: DouZero's state features of the acting seat (319 for the
//                landlord, zero-padded to 430; 430 for a peasant), then the 5 x 162 history
//                (encoding.h).
//   Action       an index into candidates(): the acting seat's legal moves (legal_moves.h
//                order), each with DouZero's 54-value action encoding as its feature row.
//                The action space is Discrete(29985), the number of distinct moves DouZero's
//                generator can make plus pass.
//   Reward       0 until the game ends; then every seat gets its DouZero training return
//                (agent_rewards(); the landlord +-2^bombs for ADP, each peasant the negative),
//                and StepResult::reward is the return of the seat that made the last move.
//   Episode      one deal (Deal::random from the env's Rng); it terminates when a hand is empty.
// Keyword arguments: objective (adp | wp | logadp).
#pragma once

#include <vector>

#include "core/config/schema.h"
#include "core/env/env.h"
#include "envs/doudizhu/encoding.h"
#include "envs/doudizhu/game.h"

namespace rlzoo::doudizhu {

struct DouDizhuConfig {
  std::string objective = "adp";

  static void describe(Fields<DouDizhuConfig>& f);
};

class DouDizhuEnv final : public Env {
 public:
  static constexpr const char* kId = "DouDizhu-v0";
  static constexpr std::int64_t kObservationSize = kMaxStateDim + kHistoryDim;
  static constexpr std::int64_t kMaxMoves = 29985;

  explicit DouDizhuEnv(DouDizhuConfig config = {});

  const Game& game() const { return game_; }
  // Starts from a given deal instead of a random one (the next reset() deals randomly again).
  void reset_to(const Deal& deal, Bytes obs);

 protected:
  void do_reset(std::optional<std::uint64_t> seed, Bytes obs) override;
  StepResult do_step(ConstBytes action, Bytes obs) override;
  nlohmann::json do_save_state() const override;
  void do_load_state(const nlohmann::json& state, Bytes obs) override;

 private:
  void after_move(Bytes obs);

  Objective objective_;
  Game game_;
  std::vector<float> candidate_features_;
};

void register_doudizhu_envs();

}  // namespace rlzoo::doudizhu
