// Game rules (turn order, passing, the trick reset, game end, scoring), records, and a seeded
// random-play test over 10,000 games checking the invariants.
#include <nlohmann/json.hpp>
#include <gtest/gtest.h>

#include "core/common/rng.h"
#include "envs/doudizhu/game.h"
#include "envs/doudizhu/legal_moves.h"
#include "tests/support/test_paths.h"

namespace rlzoo::doudizhu {
namespace {

// A hand-made deal: landlord 20 cards, landlord_down 17, landlord_up 17.
Deal small_deal() {
  Deal d;
  d.hands[seat_index(Seat::Landlord)] = parse_cards("3333 44 5 6 7 8 9 T J Q K A 22 B R");
  d.hands[seat_index(Seat::LandlordDown)] = parse_cards("44 555 666 777 888 99 T");
  d.hands[seat_index(Seat::LandlordUp)] = parse_cards("9 TT JJJ QQQ KKK AAA 22");
  d.three_landlord_cards = parse_cards("B R 3");
  d.validate();
  return d;
}

TEST(DouDizhuGame, TurnOrderPassesAndTheTrickReset) {
  Game g(small_deal());
  EXPECT_EQ(g.acting(), Seat::Landlord);
  EXPECT_TRUE(g.rival_move().empty());
  EXPECT_NE(test::error_of([&] { g.play({}); }).find("the leader cannot pass"), std::string::npos);
  g.play(parse_cards("4"));
  EXPECT_EQ(g.acting(), Seat::LandlordDown);
  EXPECT_EQ(g.rival_move(), parse_cards("4"));
  EXPECT_NE(test::error_of([&] { g.play(parse_cards("4")); }).find("does not beat 4"), std::string::npos);
  g.play({});  // landlord_down passes
  EXPECT_EQ(g.acting(), Seat::LandlordUp);
  EXPECT_EQ(g.rival_move(), parse_cards("4"));  // the 4 is still the move to beat
  g.play({});  // landlord_up passes too: the landlord leads again
  EXPECT_EQ(g.acting(), Seat::Landlord);
  EXPECT_TRUE(g.rival_move().empty());
  EXPECT_FALSE(g.legal_moves().back().empty());  // no pass on a lead
  EXPECT_EQ(g.last_action(Seat::LandlordDown), CardCounts{});
  EXPECT_EQ(g.played(Seat::Landlord), parse_cards("4"));
  EXPECT_EQ(g.hand(Seat::Landlord).size(), 19);
  EXPECT_NE(test::error_of([&] { g.play(parse_cards("666")); }).find("does not hold"), std::string::npos);
}

TEST(DouDizhuGame, PeasantMayBeatItsPartnerAndNothingBeatsTheRocket) {
  Game g(small_deal());
  g.play(parse_cards("5"));
  g.play(parse_cards("T"));   // landlord_down
  g.play(parse_cards("2"));   // landlord_up beats its partner
  g.play(parse_cards("B R"));  // the landlord's rocket
  EXPECT_EQ(g.bombs(), 1);
  EXPECT_EQ(g.legal_moves().size(), 1u);  // only pass
  g.play({});
  g.play({});
  EXPECT_TRUE(g.rival_move().empty());
  g.play(parse_cards("3333"));  // a bomb
  EXPECT_EQ(g.bombs(), 2);
}

TEST(DouDizhuGame, LandlordWinsAScriptedGameWithTheStakeDoubledOnce) {
  Game g(small_deal());
  g.play(parse_cards("5 6 7 8 9 T J Q K A"));  // a chain of ten
  g.play({});
  g.play({});
  g.play(parse_cards("B R"));  // the rocket doubles the stake
  g.play({});
  g.play({});
  g.play(parse_cards("3333 44 22"));  // four with two pairs (not a bomb) empties the hand
  ASSERT_TRUE(g.over());
  EXPECT_EQ(g.winner(), Seat::Landlord);
  EXPECT_EQ(g.bombs(), 1);
  EXPECT_EQ(g.score(Seat::Landlord), 4.0);  // 2 x 2^1
  EXPECT_EQ(g.score(Seat::LandlordDown), -2.0);
  EXPECT_EQ(g.score(Seat::LandlordUp), -2.0);
  EXPECT_EQ(g.reward(Seat::Landlord, Objective::Adp), 2.0);
  EXPECT_EQ(g.reward(Seat::LandlordUp, Objective::Adp), -2.0);
  EXPECT_EQ(g.reward(Seat::Landlord, Objective::Wp), 1.0);
  EXPECT_EQ(g.reward(Seat::LandlordDown, Objective::Wp), -1.0);
  EXPECT_EQ(g.reward(Seat::Landlord, Objective::LogAdp), 2.0);
  EXPECT_NE(test::error_of([&] { g.play({}); }).find("game is over"), std::string::npos);
  // The record replays to the same end.
  const GameRecord rec{g.deal(), {g.history().begin(), g.history().end()}};
  const Game again = replay(record_from_json(record_to_json(rec)));
  EXPECT_TRUE(again.over());
  EXPECT_EQ(again.hand(Seat::LandlordUp), g.hand(Seat::LandlordUp));
}

TEST(DouDizhuGame, BadDealsAndRecordsAreExplained) {
  Deal d = small_deal();
  d.hands[seat_index(Seat::LandlordUp)].remove(rank_of_card(9));  // only 16 cards
  EXPECT_NE(test::error_of([&] { d.validate(); }).find("deal.landlord_up holds 16 cards"), std::string::npos);
  nlohmann::json j = record_to_json({small_deal(), {parse_cards("4"), parse_cards("3")}});
  EXPECT_NE(test::error_of([&] { replay(record_from_json(j)); }).find("history[1]"), std::string::npos);
  j["deal"].erase("landlord_up");
  EXPECT_NE(test::error_of([&] { record_from_json(j); }).find("missing \"landlord_up\""), std::string::npos);
  EXPECT_NE(test::error_of([] { seat_from_name("farmer"); }).find("landlord_up"), std::string::npos);
}

// 10,000 seeded games of uniformly random legal moves.
TEST(DouDizhuGame, RandomPlayKeepsTheInvariants) {
  Rng rng(20261122);
  int landlord_wins = 0;
  std::int64_t decisions = 0;
  for (int game = 0; game < 10000; ++game) {
    const Deal deal = Deal::random(rng);
    deal.validate();
    Game g(deal);
    int moves = 0;
    while (!g.over()) {
      ASSERT_EQ(g.acting(), kSeats[static_cast<std::size_t>(moves % 3)]) << "game " << game;
      const auto& legal = g.legal_moves();
      ASSERT_FALSE(legal.empty());
      const bool leading = g.rival_move().empty();
      ASSERT_EQ(legal.back().empty(), !leading) << "game " << game << ": pass offered exactly when not leading";
      for (CardCounts m : legal) ASSERT_TRUE(g.hand(g.acting()).contains(m));
      const CardCounts move = legal[rng.below(legal.size())];
      g.play(move);  // the checked path
      ++moves;
      ++decisions;
      ASSERT_LE(moves, Game::kMaxMoves);
    }
    CardCounts all;
    int empty_hands = 0;
    double score_sum = 0;
    for (Seat s : kSeats) {
      ASSERT_EQ(g.hand(s) + g.played(s), deal.hands[static_cast<std::size_t>(seat_index(s))]) << "game " << game;
      all += g.hand(s) + g.played(s);
      empty_hands += g.hand(s).empty();
      score_sum += g.score(s);
    }
    ASSERT_EQ(all, CardCounts::full_deck());
    ASSERT_EQ(empty_hands, 1);
    ASSERT_EQ(score_sum, 0.0);
    ASSERT_EQ(g.reward(Seat::Landlord, Objective::Adp), -g.reward(Seat::LandlordUp, Objective::Adp));
    landlord_wins += g.landlord_won();
  }
  // DouZero's random self-play: the landlord wins about 36% (300 games, ../shared/notes).
  const double wp = landlord_wins / 10000.0;
  std::cout << "random play: landlord won " << wp * 100 << "% of 10000 games, " << decisions / 10000.0
            << " decisions per game\n";
  EXPECT_GT(wp, 0.30);
  EXPECT_LT(wp, 0.45);
}

}  // namespace
}  // namespace rlzoo::doudizhu
