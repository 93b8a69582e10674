// Head-to-head evaluation of two DouDizhu players, as DouZero evaluates
// (douzero/evaluation/simulation.py): the same random deals, one player in the landlord seat
// and the other in both peasant seats, scored by WP and ADP.
//
//  * Deals: N = deals from Deal::random with one Rng seeded by `seed`, generated up front in
//    order, so a seed always gives the same N deals and deal i is always deal i.
//  * A plays the landlord seat and B both peasant seats of every deal. With swap, every deal
//    is played a second time with B as landlord and A as peasants (2N games).
//  * Scores per game (zero-sum): the landlord side +-2 * 2^bombs, the peasant side (both
//    peasants together, Game::score summed) the opposite. WP of a side = fraction of its games
//    won; ADP = its mean score per game, so landlord ADP = -peasant ADP over the same games.
//  * 95% intervals, normal approximation: WP +- 1.96 sqrt(p(1-p)/n); ADP +- 1.96 sd/sqrt(n)
//    with the sample standard deviation (n - 1 in the denominator; 0 when n = 1).
//  * "overall" for a player: every game it played, in either role. Without swap it is its one
//    role; with swap it is the 2N games of both roles (DouZero-style comparison where each
//    deal is played from both sides). Its interval treats the 2N games as independent; the
//    two games of one deal are negatively correlated for a player (a deal good for the
//    landlord is bad for its peasants), so that interval is conservative.
//  * Batching: parallel_games games run at once. Each round, the unfinished games whose acting
//    seat belongs to a player go to that player's choose_batch together (landlord seats to the
//    landlord player, peasant seats to the peasant player); a position with a single legal
//    move is played without asking anyone (DouZero's agents skip the network there too). A
//    finished slot takes the next deal. With deterministic players (a choice that depends only
//    on the game) the results do not depend on parallel_games; a RandomPlayer's draws follow
//    the order of the questions, which does.
//
//  * Every finished game goes to both players' game_over() (once when they are one object).
//  * A UserError from a player (an outside program's bad answer, say) stops the matchup; its
//    message gains how many games of that pass had finished, and no result is returned.
//
// The two players may be the same object. Throws UserError for deals < 1 or parallel_games < 1.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "envs/doudizhu/player.h"

namespace rlzoo::doudizhu {

struct MatchupOptions {
  std::int64_t deals = 1000;  // random deals (>= 1); games = deals, or 2 * deals with swap
  std::uint64_t seed = 0;     // seeds the Rng of the deals
  bool swap = false;          // also play every deal with the roles exchanged
  int parallel_games = 64;    // games in flight at once (>= 1): the most a choose_batch gets per seat group
};

// One side's statistics over its games.
struct SideResult {
  double wp = 0.0;        // fraction of games won
  double wp_ci95 = 0.0;   // half-width of the 95% interval of wp
  double adp = 0.0;       // mean score per game
  double adp_ci95 = 0.0;  // half-width of the 95% interval of adp
  std::int64_t games = 0;
};

struct MatchupResult {
  std::int64_t deals = 0;
  std::uint64_t seed = 0;
  bool swap = false;
  SideResult a_as_landlord;
  SideResult b_as_peasants;
  std::optional<SideResult> b_as_landlord;  // with swap only
  std::optional<SideResult> a_as_peasants;  // with swap only
  SideResult a_overall;
  SideResult b_overall;
  // A's score in each of its games: the N landlord games, then (with swap) the N peasant games.
  std::vector<double> a_scores;
};

// Plays the matchup (see the top of this file). Players must be ready to move any seat of
// their role; they are not reset between games.
MatchupResult evaluate_matchup(Player& landlord_a, Player& peasants_b, const MatchupOptions& options);

// Statistics of one side from its per-game scores (a game is won when its score is > 0, as
// DouDizhu scores are never 0). An empty span gives all zeros.
SideResult summarize_side(std::span<const double> scores);

// A few lines for people, e.g.
//   rule as landlord vs random as peasants: 2000 deals, seed 0
//     rule as landlord    WP 0.784 +- 0.018  ADP  2.103 +- 0.088  (2000 games)
std::string format_matchup(const MatchupResult& r, std::string a_name, std::string b_name);
// {"deals", "seed", "swap", "a_as_landlord": {"wp", "wp_ci95", "adp", "adp_ci95", "games"},
//  "b_as_peasants": {...}, ["b_as_landlord", "a_as_peasants" with swap,] "a_overall", "b_overall"}
nlohmann::json to_json(const MatchupResult& r);

}  // namespace rlzoo::doudizhu
