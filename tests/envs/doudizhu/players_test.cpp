// Baseline players (random, rule-based) and the matchup evaluation.
#include <nlohmann/json.hpp>
#include <gtest/gtest.h>

#include "core/common/rng.h"
#include "envs/doudizhu/evaluation.h"
#include "envs/doudizhu/random_player.h"
#include "envs/doudizhu/rule_player.h"
#include "tests/support/test_paths.h"

namespace rlzoo::doudizhu {
namespace {

// A position from hand-made hands (the engine plays any hands; only records validate deals).
Game position(std::string_view landlord, std::string_view down, std::string_view up) {
  Deal d;
  d.hands[seat_index(Seat::Landlord)] = parse_cards(landlord);
  d.hands[seat_index(Seat::LandlordDown)] = parse_cards(down);
  d.hands[seat_index(Seat::LandlordUp)] = parse_cards(up);
  return Game(d);
}

// The move the rule player picks in g.
CardCounts rule_move(Game& g) {
  RulePlayer p;
  const std::size_t i = p.choose(g);
  EXPECT_LT(i, g.legal_moves().size());
  return g.legal_moves()[i];
}

std::vector<CardCounts> self_play(Player& p, std::uint64_t deal_seed) {
  Rng rng(deal_seed);
  Game g(Deal::random(rng));
  while (!g.over()) {
    const std::size_t i = p.choose(g);
    EXPECT_LT(i, g.legal_moves().size());
    g.play_index(i);
  }
  return {g.history().begin(), g.history().end()};
}

TEST(DouDizhuRandomPlayer, PlaysLegalMovesAndIsSeedDeterministic) {
  RandomPlayer a(7), b(7), c(8);
  bool differs = false;
  for (std::uint64_t s = 0; s < 20; ++s) {
    const auto ha = self_play(a, s);
    EXPECT_EQ(ha, self_play(b, s));
    differs = differs || ha != self_play(c, s);
  }
  EXPECT_TRUE(differs);
}

TEST(DouDizhuRulePlayer, LeadsTheCombinationThatShedsTheMostCards) {
  Game g = position("34567 99 K", "88", "TT");
  EXPECT_EQ(rule_move(g), parse_cards("34567"));
  Game trio = position("333 44 5 K", "88", "TT");
  EXPECT_EQ(rule_move(trio), parse_cards("333 44"));  // 3+2 sheds five
  Game solos = position("K 5 9", "88", "TT");
  EXPECT_EQ(rule_move(solos), parse_cards("5"));  // ties: the lowest rank
}

TEST(DouDizhuRulePlayer, KeepsBombsAndTheRocketWhenLeading) {
  Game g = position("3333 5 6 8", "88", "TT");
  EXPECT_EQ(rule_move(g), parse_cards("5"));  // not the bomb, 333+5 (splits it) or 3333+56
  Game rocket = position("B R 5 6", "88", "TT");
  EXPECT_EQ(rule_move(rocket), parse_cards("5"));
  Game only_bombs = position("3333 4444", "88", "TT");  // no single move empties this hand
  EXPECT_EQ(rule_move(only_bombs), parse_cards("3333"));
}

TEST(DouDizhuRulePlayer, PlaysOutTheLastCardsWhenTheyFormOneMove) {
  Game four_solos = position("3333 5 6", "88", "TT");  // 4+2 empties the hand: no need to keep the bomb
  EXPECT_EQ(rule_move(four_solos), parse_cards("3333 5 6"));
  Game four_two = position("3333 B R", "88", "TT");
  EXPECT_EQ(rule_move(four_two), parse_cards("3333 B R"));
  // landlord_down ends the game with a bomb although the landlord holds many cards.
  Game g = position("4 5 6 7 8 9 J Q", "5555", "TT");
  g.play(parse_cards("4"));
  EXPECT_EQ(rule_move(g), parse_cards("5555"));
}

TEST(DouDizhuRulePlayer, AnswersWithTheCheapestBeatOfTheSameType) {
  Game pair = position("55 3 4 9 J Q", "QQ 66 88 2 3", "TT");
  pair.play(parse_cards("55"));
  EXPECT_EQ(rule_move(pair), parse_cards("66"));
  // Among 555+6, 555+8, 555+K: the kicker that breaks no pair (then the lowest).
  Game kicker = position("333 4 9 J Q", "555 66 8 K", "TT");
  kicker.play(parse_cards("333 4"));
  EXPECT_EQ(rule_move(kicker), parse_cards("555 8"));
  // A solo from a bomb is not a cheap beat; the landlord holds many cards: pass.
  Game keep = position("7 3 4 5 9 J Q", "3333 5 6", "TT");
  keep.play(parse_cards("7"));
  EXPECT_TRUE(rule_move(keep).empty());
}

TEST(DouDizhuRulePlayer, BombsOnlyAnOpponentWithAtMostFourCards) {
  Game many = position("2 3 4 5 7 9", "3333 5 6", "TT");  // 5 cards left after the 2
  many.play(parse_cards("2"));
  EXPECT_TRUE(rule_move(many).empty());
  Game few = position("2 3 4 5 7", "3333 5 6", "TT");  // 4 left
  few.play(parse_cards("2"));
  EXPECT_EQ(rule_move(few), parse_cards("3333"));
  Game rocket = position("2 3 4 5 7", "B R 5 6", "TT");
  rocket.play(parse_cards("2"));
  EXPECT_EQ(rule_move(rocket), parse_cards("B R"));
}

TEST(DouDizhuRulePlayer, PassesOnThePartnerUnlessTheLandlordIsAboutToTakeOver) {
  // landlord_up on landlord_down's 5; the landlord holds 5 cards afterwards: pass.
  Game calm = position("3 4 8 9 T J", "5 6 K Q J", "7 9 K Q J");
  calm.play(parse_cards("3"));
  calm.play(parse_cards("5"));
  EXPECT_TRUE(rule_move(calm).empty());
  // The landlord holds 4: landlord_up takes the trick with its cheapest beat.
  Game danger = position("3 4 8 9 T", "5 6 K Q J", "7 9 K Q J");
  danger.play(parse_cards("3"));
  danger.play(parse_cards("5"));
  EXPECT_EQ(rule_move(danger), parse_cards("7"));
  // landlord_down on landlord_up's move always passes: the landlord has passed on it already.
  Game down = position("3 4 8 9 T", "7 6 K Q J", "5 9 K Q J");
  down.play(parse_cards("3"));
  down.play({});
  down.play(parse_cards("5"));
  down.play({});
  EXPECT_TRUE(rule_move(down).empty());
}

TEST(DouDizhuEvaluation, SummaryStatisticsMatchAHandComputedCase) {
  const std::vector<double> scores = {2, -2, 4, -2};
  const SideResult s = summarize_side(scores);
  EXPECT_EQ(s.games, 4);
  EXPECT_DOUBLE_EQ(s.wp, 0.5);
  EXPECT_DOUBLE_EQ(s.wp_ci95, 1.96 * 0.25);  // sqrt(0.5 * 0.5 / 4)
  EXPECT_DOUBLE_EQ(s.adp, 0.5);
  EXPECT_DOUBLE_EQ(s.adp_ci95, 1.96 * 3.0 / 2.0);  // squares 27 / 3 = 9: sd 3
  EXPECT_EQ(summarize_side(std::vector<double>{}).games, 0);
}

TEST(DouDizhuEvaluation, ResultsDoNotDependOnTheNumberOfParallelGames) {
  RulePlayer rule;
  MatchupOptions o{.deals = 150, .seed = 3, .swap = true, .parallel_games = 1};
  const nlohmann::json one = to_json(evaluate_matchup(rule, rule, o));
  o.parallel_games = 64;
  EXPECT_EQ(one, to_json(evaluate_matchup(rule, rule, o)));
  o.parallel_games = 1000;  // more slots than deals
  EXPECT_EQ(one, to_json(evaluate_matchup(rule, rule, o)));
}

TEST(DouDizhuEvaluation, SwapPlaysEveryDealFromBothSides) {
  RulePlayer rule;
  RandomPlayer random(1);
  MatchupOptions o{.deals = 100, .seed = 5};
  const MatchupResult plain = evaluate_matchup(rule, random, o);
  EXPECT_EQ(plain.a_as_landlord.games, 100);
  EXPECT_FALSE(plain.b_as_landlord.has_value());
  EXPECT_EQ(to_json(plain)["a_overall"], to_json(plain)["a_as_landlord"]);
  EXPECT_DOUBLE_EQ(plain.a_as_landlord.adp, -plain.b_as_peasants.adp);
  EXPECT_DOUBLE_EQ(plain.a_as_landlord.wp, 1.0 - plain.b_as_peasants.wp);

  o.swap = true;
  const MatchupResult swapped = evaluate_matchup(rule, random, o);
  ASSERT_TRUE(swapped.b_as_landlord && swapped.a_as_peasants);
  EXPECT_EQ(swapped.a_overall.games, 200);
  EXPECT_EQ(swapped.b_overall.games, 200);
  EXPECT_DOUBLE_EQ(swapped.a_overall.adp, -swapped.b_overall.adp);
  EXPECT_NEAR(swapped.a_overall.wp, (swapped.a_as_landlord.wp + swapped.a_as_peasants->wp) / 2, 1e-12);
  const std::string text = format_matchup(swapped, "rule", "random");
  EXPECT_NE(text.find("rule as peasants"), std::string::npos) << text;
  EXPECT_NE(text.find("random overall"), std::string::npos) << text;
  EXPECT_TRUE(to_json(swapped).contains("a_as_peasants"));
  EXPECT_NE(test::error_of([&] { evaluate_matchup(rule, random, {.deals = 0}); }).find("deals"), std::string::npos);
  EXPECT_NE(test::error_of([&] { evaluate_matchup(rule, random, {.parallel_games = 0}); }).find("parallel_games"),
            std::string::npos);
}

// Measured (seed 11, 2000 deals, swap): random landlord WP 0.361 / 0.371 against random
// peasants; rule landlord 0.876 against random peasants; rule peasants 0.966 against a random
// landlord. About 0.2 s.
TEST(DouDizhuEvaluation, RulePlayerBeatsRandomFromBothSeats) {
  RandomPlayer random(2);
  RulePlayer rule;
  const MatchupOptions o{.deals = 2000, .seed = 11, .swap = true};
  const MatchupResult baseline = evaluate_matchup(random, random, o);
  const MatchupResult r = evaluate_matchup(rule, random, o);
  std::cout << format_matchup(baseline, "random", "random") << format_matchup(r, "rule", "random");
  EXPECT_GT(r.a_as_landlord.wp, 0.75);
  EXPECT_GT(r.a_as_landlord.wp, baseline.a_as_landlord.wp + 0.3);
  EXPECT_GT(r.a_as_peasants->wp, 0.9);
  EXPECT_GT(r.a_as_peasants->wp, baseline.b_as_peasants.wp + 0.2);
  EXPECT_GT(r.a_overall.adp, 0.0);
}

}  // namespace
}  // namespace rlzoo::doudizhu
