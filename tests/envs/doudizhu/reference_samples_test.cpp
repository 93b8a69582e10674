// DouZero's own outputs (../shared/data/douzero): legal-move lists and move classifications,
// every case, the DouZero quirks included. Skips only when ../shared is absent.
#include <fstream>
#include <set>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "envs/doudizhu/legal_moves.h"
#include "envs/doudizhu/move_type.h"
#include "tests/support/test_paths.h"

namespace rlzoo::doudizhu {
namespace {

std::vector<nlohmann::json> read_jsonl(const std::string& path) {
  std::ifstream in(path);
  std::vector<nlohmann::json> out;
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) out.push_back(nlohmann::json::parse(line));
  return out;
}

CardCounts counts(const nlohmann::json& j) { return CardCounts::from_cards(j.get<std::vector<int>>()); }

std::optional<std::string> data_dir() {
  auto shared = test::shared_dir();
  if (!shared) return std::nullopt;
  return *shared + "/data/douzero";
}

TEST(DouZeroReference, LegalMovesMatchEveryCase) {
  const auto dir = data_dir();
  if (!dir) GTEST_SKIP() << "../shared is absent: DouZero legal-move sample not compared";
  const auto cases = read_jsonl(*dir + "/legal_moves_sample.jsonl");
  ASSERT_EQ(cases.size(), 200u);
  int quirk_cases = 0;
  for (const auto& c : cases) {
    const CardCounts hand = counts(c["hand"]), rival = counts(c["rival_move"]);
    const auto mine = legal_moves(hand, rival);
    std::set<std::uint64_t> got, want;
    for (CardCounts m : mine) got.insert(m.bits());
    for (const auto& m : c["legal"]) want.insert(counts(m).bits());
    EXPECT_EQ(got.size(), mine.size()) << c["id"] << ": duplicates in the legal list";
    EXPECT_EQ(mine.size(), c["n_legal"].get<std::size_t>()) << c["id"];
    std::vector<std::string> missing, extra;
    for (auto b : want)
      if (!got.count(b)) missing.push_back(format_card_list(CardCounts::from_bits(b)));
    for (auto b : got)
      if (!want.count(b)) extra.push_back(format_card_list(CardCounts::from_bits(b)));
    EXPECT_TRUE(missing.empty() && extra.empty())
        << c["id"] << " (" << c["tag"] << ", rival " << c["rival_type"] << ") missing: " << fmt::format("{}", fmt::join(missing, " "))
        << " extra: " << fmt::format("{}", fmt::join(extra, " "));
    if (!rival.empty()) {
      EXPECT_TRUE(mine.back().empty()) << c["id"] << ": pass must come last";
    }
    for (const auto& f : c["flags"]) {
      if (f != "raw_list_has_duplicates") {
        ++quirk_cases;
        break;
      }
    }
  }
  std::cout << "compared 200 DouZero legal-move cases, " << quirk_cases << " of them flagged as quirks\n";
}

TEST(DouZeroReference, MoveTypesMatchEveryRecord) {
  const auto dir = data_dir();
  if (!dir) GTEST_SKIP() << "../shared is absent: DouZero move-type sample not compared";
  const auto cases = read_jsonl(*dir + "/move_types_sample.jsonl");
  ASSERT_EQ(cases.size(), 200u);
  int disagreeing = 0;
  for (const auto& c : cases) {
    const MoveInfo info = classify_move(counts(c["move"]));
    EXPECT_EQ(move_type_name(info.type), c["type"].get<std::string>()) << c["id"] << " " << c["move"];
    const int rank = c["rank"].is_null() ? -1 : c["rank"].get<int>();
    const int len = c["len"].is_null() ? 0 : c["len"].get<int>();
    EXPECT_EQ(info.rank, rank) << c["id"] << " " << c["move"];
    EXPECT_EQ(info.len, len) << c["id"] << " " << c["move"];
    if (!c["detector_matches_generator"].get<bool>()) ++disagreeing;
  }
  std::cout << "compared 200 DouZero move classifications (strict), " << disagreeing
            << " where DouZero's detector disagrees with its generator\n";
}

}  // namespace
}  // namespace rlzoo::doudizhu
