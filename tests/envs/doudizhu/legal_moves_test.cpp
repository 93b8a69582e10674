// Hand-worked legal-move sets: every move type, leads and answers, bombs and the rocket,
// chains at the A/2 boundary, kickers (jokers, pairs, the rocket), DouZero's airplane ranking.
#include <algorithm>
#include <set>

#include <gtest/gtest.h>

#include "envs/doudizhu/legal_moves.h"
#include "tests/support/test_paths.h"

namespace rlzoo::doudizhu {
namespace {

// The legal moves as a set of format_cards() strings ("pass" for the pass).
std::multiset<std::string> moves(const char* hand, const char* rival = "") {
  std::multiset<std::string> out;
  for (CardCounts m : legal_moves(parse_cards(hand), parse_cards(rival))) out.insert(format_cards(m));
  return out;
}
std::multiset<std::string> set_of(std::initializer_list<const char*> l) { return {l.begin(), l.end()}; }

TEST(DouDizhuCards, ParseFormatAndCounts) {
  const CardCounts c = parse_cards("33 10 j Q k A 2 B R t");
  EXPECT_EQ(c.size(), 11);
  EXPECT_EQ(c.count(0), 2);
  EXPECT_EQ(c.count(7), 2);  // 10 and t
  EXPECT_EQ(c.cards(), (std::vector<int>{3, 3, 10, 10, 11, 12, 13, 14, 17, 20, 30}));
  EXPECT_EQ(format_cards(c), "R B 2 A K Q J TT 33");
  EXPECT_TRUE(parse_cards("pass").empty());
  EXPECT_TRUE(c.contains(parse_cards("3 T R")));
  EXPECT_FALSE(c.contains(parse_cards("333")));
  EXPECT_EQ(CardCounts::full_deck().size(), 54);
  EXPECT_NE(test::error_of([] { parse_cards("33X"); }).find("'x'"), std::string::npos);
  EXPECT_NE(test::error_of([] { parse_cards("33333"); }).find("more"), std::string::npos);
  const std::vector<int> bad{3, 16};
  EXPECT_NE(test::error_of([&] { CardCounts::from_cards(bad, "hand"); }).find("hand[1] = 16 is not a card"),
            std::string::npos);
}

TEST(DouDizhuLegalMoves, LeadsOfSmallHands) {
  EXPECT_EQ(moves("3"), set_of({"3"}));
  EXPECT_EQ(moves("33"), set_of({"3", "33"}));
  // Jokers never pair; together they are the rocket.
  EXPECT_EQ(moves("B R"), set_of({"B", "R", "R B"}));
  // A four-of-a-kind gives its solo, pair, trio and the bomb; 3+1 needs another rank.
  EXPECT_EQ(moves("3333"), set_of({"3", "33", "333", "3333"}));
  EXPECT_EQ(moves("333 4"), set_of({"3", "4", "33", "333", "4 333"}));
  // A four-of-a-kind with the rocket as its two solo kickers.
  EXPECT_EQ(moves("3333 B R"),
            set_of({"3", "B", "R", "33", "333", "3333", "R B", "B 333", "R 333", "R B 3333"}));
}

TEST(DouDizhuLegalMoves, ChainsStopAtTheAce) {
  EXPECT_EQ(moves("34567"), set_of({"3", "4", "5", "6", "7", "7 6 5 4 3"}));
  // 10 J Q K A is a chain; J Q K A 2 is not (2 never sits in a chain).
  EXPECT_EQ(moves("T J Q K A 2"), set_of({"T", "J", "Q", "K", "A", "2", "A K Q J T"}));
  EXPECT_EQ(moves("J Q K A 2 B"), set_of({"J", "Q", "K", "A", "2", "B"}));
  // Pair chains need 3 pairs.
  EXPECT_EQ(moves("33 44 55"), set_of({"3", "4", "5", "33", "44", "55", "55 44 33"}));
  EXPECT_EQ(moves("KK AA 22").count("22 AA KK"), 0u);
  // Every solo chain of a 12-rank straight: lengths 5..12, 8+7+...+1 = 36 chains.
  std::size_t chains = 0;
  for (CardCounts m : legal_moves(parse_cards("3456789TJQKA"), {})) chains += m.size() >= 5;
  EXPECT_EQ(chains, 36u);
}

TEST(DouDizhuLegalMoves, TriosAirplanesAndKickers) {
  // 333 444: solos, pairs, trios, 3+1, 3+2 with the other rank, the airplane 333444.
  EXPECT_EQ(moves("333 444"), set_of({"3", "4", "33", "44", "333", "444", "4 333", "444 3", "44 333", "444 33",
                                      "444 333"}));
  // 333 444 5 6: 4 + 2 + 2 + 3+1 (6) + 3+2 (2) + airplane + airplane with wings 5 6 = 18.
  const auto m = moves("333 444 5 6");
  EXPECT_EQ(m.size(), 18u);
  EXPECT_EQ(m.count("6 5 444 333"), 1u);
  // Airplane wings may be a pair, 2s or both jokers; pair wings need distinct pair ranks.
  EXPECT_EQ(moves("333 444 55").count("55 444 333"), 1u);
  EXPECT_EQ(moves("333 444 B R").count("R B 444 333"), 1u);
  EXPECT_EQ(moves("333 444 55 22").count("22 55 444 333"), 1u);
  EXPECT_EQ(moves("333 444 5555").count("55 55 444 333"), 0u);
  // 333444555666 is listed once (as a trio chain), although it is also an airplane of 3.
  EXPECT_EQ(moves("333 444 555 666").count("666 555 444 333"), 1u);
}

TEST(DouDizhuLegalMoves, AnswersOfTheSameType) {
  EXPECT_EQ(moves("2 B R 3", "A"), set_of({"2", "B", "R", "R B", "pass"}));
  EXPECT_EQ(moves("AA 22 3333", "KK"), set_of({"AA", "22", "3333", "pass"}));
  EXPECT_EQ(moves("555 6 B R", "4 333"), set_of({"6 555", "B 555", "R 555", "R B", "pass"}));
  EXPECT_EQ(moves("555 66 7", "44 333"), set_of({"66 555", "pass"}));
  EXPECT_EQ(moves("45678 9", "34567"), set_of({"8 7 6 5 4", "9 8 7 6 5", "pass"}));
  // Same length only.
  EXPECT_EQ(moves("3456789", "34567").count("8 7 6 5 4"), 1u);
  EXPECT_EQ(moves("3456789", "34567").count("9 8 7 6 5 4"), 0u);
  EXPECT_EQ(moves("J Q K A 2", "T J Q K A"), set_of({"pass"}));
  EXPECT_EQ(moves("6666 7 8", "3333 4 5"), set_of({"8 7 6666", "6666", "pass"}));
  EXPECT_EQ(moves("6666 77 88", "3333 44 55"), set_of({"88 77 6666", "6666", "pass"}));
}

TEST(DouDizhuLegalMoves, BombsAndTheRocket) {
  // Any bomb or the rocket beats an ordinary move.
  EXPECT_EQ(moves("4444 B R", "A"), set_of({"R", "B", "4444", "R B", "pass"}));
  // A bomb is beaten only by a higher bomb or the rocket.
  EXPECT_EQ(moves("4444 6666 B R", "5555"), set_of({"6666", "R B", "pass"}));
  // Nothing beats the rocket.
  EXPECT_EQ(moves("7777 2222", "B R"), set_of({"pass"}));
}

TEST(DouDizhuLegalMoves, AirplanesRankByTheirHighestTrio) {
  // DouZero ranks 333444555+777 as 7 (the highest rank held three times).
  EXPECT_EQ(moves("444 555 666 888", "333 444 555 777").count("888 666 555 444"), 1u);
  EXPECT_EQ(moves("444 555 666 9 T J", "333 444 555 777").count("J T 9 666 555 444"), 0u);
  EXPECT_EQ(moves("666 777 888 9 T J", "333 444 555 777").count("J T 9 888 777 666"), 1u);
  // An airplane of 3 can be answered by 444555666777 (an airplane with a trio wing).
  EXPECT_EQ(moves("444 555 666 777", "333 444 555 6 7 8").count("777 666 555 444"), 1u);
  // DouZero's detector calls an airplane with a four-of-a-kind in its wings WRONG: only bombs answer it.
  EXPECT_EQ(moves("444 555 666 777 8888", "333 444 555 666 7777"), set_of({"8888", "pass"}));
}

TEST(DouDizhuLegalMoves, NoDuplicatesInLargeHands) {
  // A hand rich in trios: every multiset once.
  std::vector<CardCounts> out;
  generate_leads(parse_cards("333 444 555 666 777 88 99 B R"), out);
  auto sorted = out;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(std::unique(sorted.begin(), sorted.end()), sorted.end());
  for (CardCounts m : out) EXPECT_NE(classify_move(m).type, MoveType::Pass);
}

}  // namespace
}  // namespace rlzoo::doudizhu
