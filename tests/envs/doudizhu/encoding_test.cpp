// DouZero's observation encoding: hand-worked entries, and DouZero's own arrays for the 20
// situations of ../shared/data/douzero/q_sample (hashes of x_no_action and z for all, the raw
// rows for the first 5), with the legal actions of each situation.
#include <fstream>
#include <set>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "envs/doudizhu/doudizhu_env.h"
#include "envs/doudizhu/encoding.h"
#include "core/env/conformance.h"
#include "tests/support/sha256.h"
#include "tests/support/test_paths.h"

namespace rlzoo::doudizhu {
namespace {

TEST(DouDizhuEncoding, CardsAreAThermometerPerRankPlusJokers) {
  std::array<std::uint8_t, kCardDim> v{};
  encode_cards(parse_cards("333 5 22 R"), v.data());
  std::vector<int> ones;
  for (int i = 0; i < kCardDim; ++i)
    if (v[static_cast<std::size_t>(i)]) ones.push_back(i);
  // 3 x3 -> 0,1,2; 5 -> column 2 -> 8; 2 x2 -> column 12 -> 48,49; red joker -> 53.
  EXPECT_EQ(ones, (std::vector<int>{0, 1, 2, 8, 48, 49, 53}));
}

TEST(DouDizhuEncoding, StateLayoutsOfBothRoles) {
  Deal d;
  d.hands[0] = parse_cards("3333 44 5 6 7 8 9 T J Q K A 22 B R");
  d.hands[1] = parse_cards("44 555 666 777 888 99 T");
  d.hands[2] = parse_cards("9 TT JJJ QQQ KKK AAA 22");
  d.three_landlord_cards = parse_cards("B R 3");
  Game g(d);
  g.play(parse_cards("B R"));  // landlord: rocket
  g.play({});                 // landlord_down passes
  std::vector<float> x(kPeasantStateDim);
  encode_state(g, Seat::LandlordUp, x.data());
  // Peasant: hand, others, landlord played (the rocket: 52, 53), partner played, last move
  // (the rocket, still to beat), landlord's last action, partner's last action (pass).
  EXPECT_EQ(x[2 * 54 + 52], 1.0f);
  EXPECT_EQ(x[4 * 54 + 53], 1.0f);
  EXPECT_EQ(x[5 * 54 + 52], 1.0f);
  float partner_last = 0;
  for (int i = 0; i < 54; ++i) partner_last += x[static_cast<std::size_t>(6 * 54 + i)];
  EXPECT_EQ(partner_last, 0.0f);
  EXPECT_EQ(x[7 * 54 + 17], 1.0f);       // landlord has 18 cards: entry 17 of 20
  EXPECT_EQ(x[7 * 54 + 20 + 16], 1.0f);  // partner has 17: entry 16 of 17
  EXPECT_EQ(x[7 * 54 + 37 + 1], 1.0f);   // one bomb
  std::vector<float> z(kHistoryDim);
  encode_history(g, z.data());
  // 2 moves: they are the last two of 15, i.e. moves 13 and 14 -> row 4, slots 1 and 2.
  EXPECT_EQ(z[4 * 162 + 54 + 52], 1.0f);
  float rest = 0;
  for (float v : z) rest += v;
  EXPECT_EQ(rest, 2.0f);
}

TEST(DouDizhuEnv, PassesTheConformanceCheck) {
  ConformanceOptions opt;
  opt.episodes_per_seed = 3;
  const auto report = check_env_conformance([] { return std::make_unique<DouDizhuEnv>(); }, opt);
  EXPECT_TRUE(report.ok()) << report.summary();
}

std::optional<std::vector<nlohmann::json>> q_cases() {
  auto shared = test::shared_dir();
  if (!shared) return std::nullopt;
  std::ifstream in(*shared + "/data/douzero/q_sample/cases.jsonl");
  std::vector<nlohmann::json> out;
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) out.push_back(nlohmann::json::parse(line));
  return out;
}

TEST(DouZeroReference, ObservationsOfTheQSampleMatchDouZero) {
  const auto cases = q_cases();
  if (!cases) GTEST_SKIP() << "../shared is absent: DouZero's observation arrays not compared";
  ASSERT_EQ(cases->size(), 20u);
  for (const auto& c : *cases) {
    const std::string id = c["id"];
    Game g = replay({deal_from_json(c["deal"]), moves_from_json(c["history"], "history")});
    const Seat s = seat_from_name(c["position"].get<std::string>());
    ASSERT_EQ(g.acting(), s) << id;
    std::string x(static_cast<std::size_t>(state_dim(s)), '\0'), z(kHistoryDim, '\0');
    encode_state(g, s, reinterpret_cast<std::uint8_t*>(x.data()));
    encode_history(g, reinterpret_cast<std::uint8_t*>(z.data()));
    EXPECT_EQ(test::sha256_hex(x), c["x_no_action_sha"].get<std::string>()) << id;
    EXPECT_EQ(test::sha256_hex(z), c["z_sha"].get<std::string>()) << id;
    // The legal actions (DouZero's list has duplicates; compare as sets).
    std::set<std::uint64_t> want, got;
    for (const auto& a : c["legal_actions"]) want.insert(CardCounts::from_cards(a.get<std::vector<int>>()).bits());
    for (CardCounts m : g.legal_moves()) got.insert(m.bits());
    EXPECT_EQ(got, want) << id;
    EXPECT_EQ(got.size(), g.legal_moves().size()) << id;
    if (c.contains("x_batch_row0")) {
      std::vector<std::uint8_t> row(x.begin(), x.end());
      std::array<std::uint8_t, kCardDim> a{};
      encode_cards(CardCounts::from_cards(c["legal_actions"][0].get<std::vector<int>>()), a.data());
      row.insert(row.end(), a.begin(), a.end());
      EXPECT_EQ(row, c["x_batch_row0"].get<std::vector<std::uint8_t>>()) << id;
      std::vector<std::uint8_t> zz(z.begin(), z.end()), want_z;
      for (const auto& r : c["z"])
        for (int v : r.get<std::vector<int>>()) want_z.push_back(static_cast<std::uint8_t>(v));
      EXPECT_EQ(zz, want_z) << id;
    }
  }
  std::cout << "compared DouZero's x_no_action and z hashes and legal actions of 20 situations, raw rows of 5\n";
}

}  // namespace
}  // namespace rlzoo::doudizhu
