// `rlzoo doudizhu ...`: the JSON-lines tools against DouZero's own outputs, importing DouZero's
// checkpoints, head-to-head evaluation, and the terminal game with malformed and illegal input.
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <utility>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "envs/doudizhu/cards.h"
#include "tests/support/test_paths.h"

namespace rlzoo {
namespace {

std::string cli() {
  std::string s(1, '\'');  // (operator+ on a literal trips a GCC 12 -Wrestrict false positive)
  s += test::cli_path();
  s += '\'';
  return s;
}

bool has_doudizhu_commands() { return test::run_command(cli() + " doudizhu --help").status == 0; }

#define SKIP_WITHOUT_DOUDIZHU() \
  if (!has_doudizhu_commands()) GTEST_SKIP() << "rlzoo built without LibTorch: no doudizhu commands"

std::vector<nlohmann::json> lines_of(const std::string& text) {
  std::vector<nlohmann::json> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);)
    if (!l.empty()) out.push_back(nlohmann::json::parse(l));
  return out;
}

std::set<std::uint64_t> move_set(const nlohmann::json& moves) {
  std::set<std::uint64_t> s;
  for (const auto& m : moves) s.insert(doudizhu::CardCounts::from_cards(m.get<std::vector<int>>()).bits());
  return s;
}

TEST(DouDizhuCli, LegalMovesAnswersDouZerosSample) {
  SKIP_WITHOUT_DOUDIZHU();
  const auto shared = test::shared_dir();
  if (!shared) GTEST_SKIP() << "../shared is absent";
  std::ifstream in(*shared + "/data/douzero/legal_moves_sample.jsonl");
  std::string input;
  std::vector<nlohmann::json> cases;
  for (std::string l; std::getline(in, l);) {
    if (l.empty()) continue;
    cases.push_back(nlohmann::json::parse(l));
    input += nlohmann::json{{"hand", cases.back()["hand"]}, {"rival_move", cases.back()["rival_move"]}}.dump() + "\n";
  }
  const auto r = test::run_command(cli() + " doudizhu legal-moves", input);
  ASSERT_EQ(r.status, 0) << r.err;
  const auto answers = lines_of(r.out);
  ASSERT_EQ(answers.size(), cases.size());
  for (std::size_t i = 0; i < cases.size(); ++i) {
    EXPECT_EQ(move_set(answers[i]["legal"]), move_set(cases[i]["legal"])) << cases[i]["id"];
    EXPECT_EQ(answers[i]["legal"].size(), cases[i]["legal"].size()) << cases[i]["id"];
    for (const auto& m : answers[i]["legal"]) EXPECT_TRUE(std::is_sorted(m.begin(), m.end()));
  }
}

TEST(DouDizhuCli, LegalMovesNamesTheBadLine) {
  SKIP_WITHOUT_DOUDIZHU();
  const auto r = test::run_command(cli() + " doudizhu legal-moves",
                                   "{\"hand\": [3, 4], \"rival_move\": []}\n{\"hand\": [3, 16], \"rival_move\": []}\n");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(lines_of(r.out).size(), 1u);  // the good line was answered
  EXPECT_NE(r.err.find("stdin line 2: hand[1] = 16 is not a card"), std::string::npos) << r.err;
}

TEST(DouDizhuCli, QValuesAreDouZeros) {
  SKIP_WITHOUT_DOUDIZHU();
  const auto shared = test::shared_dir();
  if (!shared) GTEST_SKIP() << "../shared is absent";
  const std::string dir = *shared + "/data/douzero/q_sample";
  std::ifstream in(dir + "/cases.jsonl");
  std::string input;
  std::vector<nlohmann::json> cases;
  for (std::string l; std::getline(in, l);) {
    if (l.empty()) continue;
    cases.push_back(nlohmann::json::parse(l));
    const auto& c = cases.back();
    input += nlohmann::json{{"deal", c["deal"]}, {"history", c["history"]}, {"position", c["position"]}}.dump() + "\n";
  }
  const auto r = test::run_command(cli() + " doudizhu q-values --douzero-checkpoints '" + dir + "'", input);
  ASSERT_EQ(r.status, 0) << r.err;
  const auto answers = lines_of(r.out);
  ASSERT_EQ(answers.size(), 20u);
  for (std::size_t i = 0; i < cases.size(); ++i) {
    std::map<std::uint64_t, double> q;
    for (std::size_t k = 0; k < answers[i]["legal_actions"].size(); ++k)
      q[move_set(nlohmann::json::array({answers[i]["legal_actions"][k]})).begin().operator*()] = answers[i]["q"][k];
    for (std::size_t k = 0; k < cases[i]["legal_actions"].size(); ++k) {
      const auto key = *move_set(nlohmann::json::array({cases[i]["legal_actions"][k]})).begin();
      ASSERT_TRUE(q.count(key)) << cases[i]["id"];
      EXPECT_NEAR(q[key], cases[i]["q"][k].get<double>(), 1e-4) << cases[i]["id"];
    }
  }
  // The position must be the one to act.
  auto bad = cases[0];
  const auto r2 = test::run_command(
      cli() + " doudizhu q-values --douzero-checkpoints '" + dir + "'",
      nlohmann::json{{"deal", bad["deal"]}, {"history", bad["history"]}, {"position", "landlord_up"}}.dump() + "\n");
  EXPECT_EQ(r2.status, 2);
  EXPECT_NE(r2.err.find("landlord acts next"), std::string::npos) << r2.err;
}

TEST(DouDizhuCli, ImportedDouZeroModelIsAnAgent) {
  SKIP_WITHOUT_DOUDIZHU();
  const auto shared = test::shared_dir();
  if (!shared) GTEST_SKIP() << "../shared is absent";
  const std::string dir = *shared + "/data/douzero/q_sample";
  const auto out = test::make_temp_dir("douzero_import") + "/agent";
  auto r = test::run_command(cli() + " doudizhu import-douzero '" + dir + "' '" + out + "'");
  ASSERT_EQ(r.status, 0) << r.err;
  // Importing again over it is refused without --force (nothing is lost).
  r = test::run_command(cli() + " doudizhu import-douzero '" + dir + "' '" + out + "'");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--force"), std::string::npos);
  // The imported agent and the DouZero folder play identically.
  const auto a = test::run_command(cli() + " doudizhu eval --json --deals 30 --landlord '" + out + "' --peasants rule");
  const auto b = test::run_command(cli() + " doudizhu eval --json --deals 30 --landlord '" + dir + "' --peasants rule");
  ASSERT_EQ(a.status, 0) << a.err;
  ASSERT_EQ(b.status, 0) << b.err;
  EXPECT_EQ(nlohmann::json::parse(a.out)["a_as_landlord"], nlohmann::json::parse(b.out)["a_as_landlord"]);
  // A missing file is named.
  r = test::run_command(cli() + " doudizhu import-douzero '" + test::make_temp_dir("empty") + "' '" + out + "2'");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("missing landlord.ckpt"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(out + "2"));
}

TEST(DouDizhuCli, EvalPrintsBothSidesWithIntervals) {
  SKIP_WITHOUT_DOUDIZHU();
  const auto r = test::run_command(cli() + " doudizhu eval --json --deals 200 --seed 5 --swap --landlord rule --peasants random");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["a_as_landlord"]["games"], 200);
  EXPECT_EQ(j["a_overall"]["games"], 400);
  EXPECT_GT(j["a_as_landlord"]["wp"].get<double>(), 0.6);
  EXPECT_NEAR(j["a_as_landlord"]["adp"].get<double>(), -j["b_as_peasants"]["adp"].get<double>(), 1e-9);
  const auto bad = test::run_command(cli() + " doudizhu eval --landlord nobody --peasants random");
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("'nobody'"), std::string::npos);
}

TEST(DouDizhuCli, PlayExplainsBadInputAndNeverCrashes) {
  SKIP_WITHOUT_DOUDIZHU();
  // As the landlord (who leads): nonsense, a card we may not hold, help, hint, then quit.
  const auto r = test::run_command(cli() + " doudizhu play --ai rule --seat landlord --seed 3",
                                   "xyz\n3333333\nhelp\nhint\n\npass\nquit\n");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("Not accepted: 'x'"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("more 3"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("legal moves:"), std::string::npos);
  EXPECT_NE(r.out.find("the leader cannot pass"), std::string::npos);
  EXPECT_NE(r.out.find("Bye"), std::string::npos);
  // End of input in the middle of a game ends cleanly too; a whole game can be played by
  // always answering with the first hinted move... here: input ends at once.
  const auto eof = test::run_command(cli() + " doudizhu play --ai random --seat landlord_up --seed 1", "");
  EXPECT_EQ(eof.status, 0) << eof.err;
  const auto bad_seat = test::run_command(cli() + " doudizhu play --seat farmer", "");
  EXPECT_EQ(bad_seat.status, 2);
  EXPECT_NE(bad_seat.err.find("landlord_up"), std::string::npos);
}

TEST(DouDizhuCli, PlayTakesALoneQueenInEitherCase) {
  SKIP_WITHOUT_DOUDIZHU();
  // Seeds 1 and 2 deal the landlord (who leads) one queen: "q" and "Q" play it.
  for (const auto& [seed, move] : {std::pair{1, "q"}, std::pair{2, "Q"}}) {
    const auto r = test::run_command(cli() + fmt::format(" doudizhu play --ai rule --seat landlord --seed {}", seed),
                                     std::string(move) + "\nquit\n");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out.find("Not accepted"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("Your hand (19 cards)"), std::string::npos) << move << "\n" << r.out;
    EXPECT_NE(r.out.find("Bye"), std::string::npos);
  }
}

TEST(DouDizhuCli, EvalSeatsOutsidePrograms) {
  SKIP_WITHOUT_DOUDIZHU();
  // A shell program answering every request with the first legal move, on one peasant seat
  // beside the rule player on the other; the same with the program on both seats.
  const std::string first =
      "'exec:while read -r l; do case \"$l\" in *\\\"move\\\"*) echo {\\\"index\\\":0};; esac; done'";
  const auto mixed = test::run_command(cli() + " doudizhu eval --json --deals 20 --landlord random --landlord-down " +
                                       first + " --landlord-up rule");
  ASSERT_EQ(mixed.status, 0) << mixed.err;
  EXPECT_EQ(nlohmann::json::parse(mixed.out)["b_as_peasants"]["games"], 20);
  const auto both = test::run_command(cli() + " doudizhu eval --deals 20 --landlord rule --peasants " + first);
  ASSERT_EQ(both.status, 0) << both.err;
  EXPECT_NE(both.out.find("as peasants"), std::string::npos) << both.out;
  // Seats that cannot be matched up are refused before anything runs.
  const auto half = test::run_command(cli() + " doudizhu eval --landlord rule --landlord-down rule");
  EXPECT_EQ(half.status, 2);
  EXPECT_NE(half.err.find("--landlord-down and --landlord-up go together"), std::string::npos) << half.err;
  const auto swap = test::run_command(cli() + " doudizhu eval --swap --landlord rule --landlord-down rule --landlord-up random");
  EXPECT_EQ(swap.status, 2);
  EXPECT_NE(swap.err.find("--swap"), std::string::npos) << swap.err;
  const auto late = test::run_command(cli() + " doudizhu eval --deals 3 --answer-timeout 0.2 --landlord 'exec:cat > /dev/null' --peasants rule");
  EXPECT_EQ(late.status, 2);
  EXPECT_NE(late.err.find("seat landlord (`cat > /dev/null`): no answer within 0.2 s"), std::string::npos) << late.err;
}

TEST(DouDizhuCli, PlaySeatsAnOutsideProgramBesideAnotherAgent) {
  SKIP_WITHOUT_DOUDIZHU();
  // You hold landlord_down; the landlord is the rule player (--ai) and landlord_up a shell
  // program that always plays its first legal move and logs what it is asked.
  const std::string log = test::make_temp_dir("play_outside") + "/up.log";
  const std::string first = "'exec:while read -r l; do printf \"%s\\n\" \"$l\" >> " + log +
                            "; case \"$l\" in *\\\"move\\\"*) echo {\\\"index\\\":0};; esac; done'";
  std::string input;
  for (int i = 0; i < 60; ++i) input += "pass\n";  // passes where it may; the rest are explained and asked again
  input += "quit\n";
  const auto r = test::run_command(cli() + " doudizhu play --seat landlord_down --seed 3 --landlord-up " + first, input);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("you are landlord_down; landlord: rule; landlord_up: outside program `while"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("landlord_up ("), std::string::npos) << r.out;  // it moved
  std::set<std::string> seats;
  for (const auto& line : lines_of(test::read_file_or_empty(log))) seats.insert(line["seat"].get<std::string>());
  EXPECT_EQ(seats, std::set<std::string>{"landlord_up"});
  // Your own seat cannot be given an agent.
  const auto own = test::run_command(cli() + " doudizhu play --seat landlord --landlord rule", "");
  EXPECT_EQ(own.status, 2);
  EXPECT_NE(own.err.find("your own seat"), std::string::npos) << own.err;
}

// `rlzoo bench doudizhu` end to end at its smallest: the training line's two ceilings are
// computed from the one-thread acting and learning lines and the sgemm peak of the same run.
TEST(DouDizhuCli, BenchTrainingLineCarriesItsCeilings) {
  SKIP_WITHOUT_DOUDIZHU();
  const auto r = test::run_command(cli() + " bench doudizhu --train-frames 3200 --seconds 0.05 --repeats 1");
  ASSERT_EQ(r.status, 0) << r.err;
  std::map<std::string, nlohmann::json> by_name;
  std::istringstream lines(r.out);
  for (std::string l; std::getline(lines, l);) {
    if (l.empty() || l[0] != '{') continue;  // the log's lines
    const auto j = nlohmann::json::parse(l);
    by_name[j.at("bench").get<std::string>()] = j;
  }
  for (const char* name : {"doudizhu/legal_moves_fresh_landlord_hand", "doudizhu/random_selfplay",
                           "doudizhu/actor_decisions_1_thread", "doudizhu/learner_frames_1_thread", "doudizhu/train_frames"})
    ASSERT_TRUE(by_name.count(name)) << name << " missing from:\n" << r.out;
  const auto& act = by_name["doudizhu/actor_decisions_1_thread"];
  const auto& learn = by_name["doudizhu/learner_frames_1_thread"];
  const auto& train = by_name["doudizhu/train_frames"];
  const double act_rate = act["value"], learn_rate = learn["value"], rate = train["value"];
  const double peak = learn["sgemm_peak_gflops"], act_mflop = train["acting_mflop_per_frame"],
               learn_mflop = train["learning_mflop_per_frame"];
  ASSERT_GT(rate, 0.0);
  EXPECT_EQ(learn["frames_per_step"], 3200);  // the preset's B x T
  EXPECT_NEAR(learn["gflops"].get<double>(), learn_rate * learn_mflop / 1e3, 1e-9 * learn_rate * learn_mflop);
  // DouZero's network learns a frame in 8.26 MFLOP of dense products (three times the forward
  // pass's 2.75) and 2 x 2 x 512 per nonzero input feature: a peasant's frames hold ~60, so
  // fewer than 200 (the dense count was 12.6 MFLOP). Acting costs more than the per-decision
  // products (0.66 MFLOP) unless every move was forced.
  EXPECT_GT(learn_mflop, 8.26);
  EXPECT_LT(learn_mflop, 8.26 + 200 * 2.048e-3);
  EXPECT_GT(act_mflop, 0.66);
  const double ceiling = 2.0 * peak * 1e3 / (act_mflop + learn_mflop);
  EXPECT_NEAR(train["ceiling_at_peak"].get<double>(), ceiling, 1e-9 * ceiling);
  EXPECT_NEAR(train["fraction_of_ceiling_at_peak"].get<double>(), rate / ceiling, 1e-9);
  const double busy = 2.0 / (1.0 / act_rate + 1.0 / learn_rate);
  EXPECT_NEAR(train["ceiling_at_one_thread_rates"].get<double>(), busy, 1e-9 * busy);
  EXPECT_NEAR(train["fraction_of_ceiling_at_one_thread_rates"].get<double>(), rate / busy, 1e-9);
}

}  // namespace
}  // namespace rlzoo
