#include "envs/doudizhu/evaluation.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/common/error.h"
#include "core/common/rng.h"

namespace rlzoo::doudizhu {
namespace {

// Per-deal scores of one pass over the deals.
struct Scores {
  std::vector<double> landlord;
  std::vector<double> peasants;  // both peasants together
};

// Plays every deal with `landlord` in the landlord seat and `peasants` in both peasant seats,
// `parallel` games at a time.
Scores play_deals(Player& landlord, Player& peasants, const std::vector<Deal>& deals, int parallel) {
  Scores scores{std::vector<double>(deals.size()), std::vector<double>(deals.size())};
  const std::size_t slots = std::min(static_cast<std::size_t>(parallel), deals.size());
  std::vector<Game> games;
  games.reserve(slots);
  std::vector<std::size_t> deal_of(slots);
  std::vector<char> live(slots, 1);
  std::size_t next = 0;
  for (std::size_t s = 0; s < slots; ++s) {
    deal_of[s] = next;
    games.emplace_back(deals[next++]);
  }
  std::size_t running = slots;
  std::size_t finished = 0;

  // Records a finished game and gives its slot the next deal.
  auto settle = [&](std::size_t s) {
    Game& g = games[s];
    if (!g.over()) return;
    scores.landlord[deal_of[s]] = g.score(Seat::Landlord);
    scores.peasants[deal_of[s]] = g.score(Seat::LandlordDown) + g.score(Seat::LandlordUp);
    landlord.game_over(g);
    if (&peasants != &landlord) peasants.game_over(g);
    ++finished;
    if (next < deals.size()) {
      deal_of[s] = next;
      g.reset(deals[next++]);
    } else {
      live[s] = 0;
      --running;
    }
  };

  std::vector<Game*> batch;
  std::vector<std::size_t> batch_slot, choice;
  batch.reserve(slots);
  batch_slot.reserve(slots);
  choice.reserve(slots);
  while (running > 0) {
    for (const bool peasant_turn : {false, true}) {
      Player& player = peasant_turn ? peasants : landlord;
      batch.clear();
      batch_slot.clear();
      for (std::size_t s = 0; s < slots; ++s) {
        if (!live[s] || is_peasant(games[s].acting()) != peasant_turn) continue;
        if (games[s].legal_moves().size() == 1) {  // a forced move: nobody is asked
          games[s].play_index(0);
          settle(s);
          continue;
        }
        batch.push_back(&games[s]);
        batch_slot.push_back(s);
      }
      if (batch.empty()) continue;
      choice.assign(batch.size(), 0);
      try {
        player.choose_batch(batch, choice);
      } catch (const UserError& e) {
        // Nothing is scored from a matchup that could not finish: say how far it got.
        throw UserError(fmt::format("{} (the evaluation stopped after {} of {} games of this pass had finished; no "
                                    "result is reported)",
                                    e.what(), finished, deals.size()));
      }
      for (std::size_t k = 0; k < batch.size(); ++k) {
        batch[k]->play_index(choice[k]);
        settle(batch_slot[k]);
      }
    }
  }
  return scores;
}

std::vector<double> concat(const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<double> out(a);
  out.insert(out.end(), b.begin(), b.end());
  return out;
}

nlohmann::json side_json(const SideResult& s) {
  return {{"wp", s.wp}, {"wp_ci95", s.wp_ci95}, {"adp", s.adp}, {"adp_ci95", s.adp_ci95}, {"games", s.games}};
}

}  // namespace

SideResult summarize_side(std::span<const double> scores) {
  SideResult r;
  r.games = static_cast<std::int64_t>(scores.size());
  if (scores.empty()) return r;
  const double n = static_cast<double>(scores.size());
  double wins = 0.0, sum = 0.0;
  for (const double s : scores) {
    wins += s > 0.0;
    sum += s;
  }
  r.wp = wins / n;
  r.wp_ci95 = 1.96 * std::sqrt(r.wp * (1.0 - r.wp) / n);
  r.adp = sum / n;
  if (scores.size() > 1) {
    double squares = 0.0;
    for (const double s : scores) squares += (s - r.adp) * (s - r.adp);
    r.adp_ci95 = 1.96 * std::sqrt(squares / (n - 1.0)) / std::sqrt(n);
  }
  return r;
}

MatchupResult evaluate_matchup(Player& landlord_a, Player& peasants_b, const MatchupOptions& options) {
  if (options.deals < 1) throw UserError(fmt::format("evaluation deals must be >= 1, got {}", options.deals));
  if (options.parallel_games < 1)
    throw UserError(fmt::format("evaluation parallel_games must be >= 1, got {}", options.parallel_games));

  std::vector<Deal> deals;
  deals.reserve(static_cast<std::size_t>(options.deals));
  Rng rng(options.seed);
  for (std::int64_t i = 0; i < options.deals; ++i) deals.push_back(Deal::random(rng));

  MatchupResult r;
  r.deals = options.deals;
  r.seed = options.seed;
  r.swap = options.swap;
  const Scores ab = play_deals(landlord_a, peasants_b, deals, options.parallel_games);
  r.a_as_landlord = summarize_side(ab.landlord);
  r.b_as_peasants = summarize_side(ab.peasants);
  if (!options.swap) {
    r.a_overall = r.a_as_landlord;
    r.b_overall = r.b_as_peasants;
    r.a_scores = ab.landlord;
    return r;
  }
  const Scores ba = play_deals(peasants_b, landlord_a, deals, options.parallel_games);
  r.b_as_landlord = summarize_side(ba.landlord);
  r.a_as_peasants = summarize_side(ba.peasants);
  r.a_scores = concat(ab.landlord, ba.peasants);
  r.a_overall = summarize_side(r.a_scores);
  r.b_overall = summarize_side(concat(ab.peasants, ba.landlord));
  return r;
}

std::string format_matchup(const MatchupResult& r, std::string a_name, std::string b_name) {
  const std::size_t width = std::max(a_name.size(), b_name.size()) + 12;
  auto line = [&](const std::string& who, const SideResult& s) {
    return fmt::format("  {:<{}}  WP {:.3f} +- {:.3f}  ADP {:+.3f} +- {:.3f}  ({} games)\n", who, width, s.wp,
                       s.wp_ci95, s.adp, s.adp_ci95, s.games);
  };
  std::string out = fmt::format("{} as landlord vs {} as peasants: {} deals, seed {}{}\n", a_name, b_name, r.deals,
                                r.seed, r.swap ? ", roles swapped too" : "");
  out += line(a_name + " as landlord", r.a_as_landlord);
  out += line(b_name + " as peasants", r.b_as_peasants);
  if (r.b_as_landlord && r.a_as_peasants) {
    out += line(b_name + " as landlord", *r.b_as_landlord);
    out += line(a_name + " as peasants", *r.a_as_peasants);
    out += line(a_name + " overall", r.a_overall);
    out += line(b_name + " overall", r.b_overall);
  }
  return out;
}

nlohmann::json to_json(const MatchupResult& r) {
  nlohmann::json j = {{"deals", r.deals},
                      {"seed", r.seed},
                      {"swap", r.swap},
                      {"a_as_landlord", side_json(r.a_as_landlord)},
                      {"b_as_peasants", side_json(r.b_as_peasants)}};
  if (r.b_as_landlord) j["b_as_landlord"] = side_json(*r.b_as_landlord);
  if (r.a_as_peasants) j["a_as_peasants"] = side_json(*r.a_as_peasants);
  j["a_overall"] = side_json(r.a_overall);
  j["b_overall"] = side_json(r.b_overall);
  return j;
}

}  // namespace rlzoo::doudizhu
