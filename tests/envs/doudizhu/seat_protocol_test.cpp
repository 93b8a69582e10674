// The seat protocol (requests and answers by hand) and OutsidePlayer: outside programs play
// whole matchups exactly as an in-process player choosing the same moves would; malformed,
// illegal, late and missing answers are errors naming the seat, the command and the line.
#include <fstream>
#include <map>
#include <set>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/common/error.h"
#include "envs/doudizhu/evaluation.h"
#include "envs/doudizhu/outside_player.h"
#include "envs/doudizhu/peasant_pair.h"
#include "envs/doudizhu/random_player.h"
#include "envs/doudizhu/rule_player.h"
#include "envs/doudizhu/seat_protocol.h"
#include "tests/support/test_paths.h"

namespace rlzoo::doudizhu {
namespace {

using namespace std::chrono_literals;
using test::error_of;

Game position(std::string_view landlord, std::string_view down, std::string_view up) {
  Deal d;
  d.hands[seat_index(Seat::Landlord)] = parse_cards(landlord);
  d.hands[seat_index(Seat::LandlordDown)] = parse_cards(down);
  d.hands[seat_index(Seat::LandlordUp)] = parse_cards(up);
  d.three_landlord_cards = parse_cards("3 4 K");
  return Game(d);
}

std::vector<int> cards(std::string_view text) { return parse_cards(text).cards(); }

// Plays legal_moves()[0] everywhere: what the `first` shell program below answers.
class FirstMovePlayer : public Player {
 public:
  std::string name() const override { return "first"; }
  std::size_t choose(Game&) override { return 0; }
};

// A shell program speaking the protocol: answers every "move" request with index 0 and
// ignores everything else ("game_over"); each line it receives is appended to `log` if given.
std::string first_move_program(const std::string& log = "") {
  std::string keep = log.empty() ? "" : "printf '%s\\n' \"$line\" >> '" + log + "'; ";
  return "while IFS= read -r line; do " + keep +
         "case \"$line\" in *'\"type\":\"move\"'*) echo '{\"index\": 0}';; esac; done";
}

TEST(SeatProtocol, TheRequestIsTheActingSeatsView) {
  Game g = position("33 4 5 K", "66 7 8", "99 T J");
  g.play(parse_cards("3"));
  g.play(parse_cards("7"));  // landlord_up to move, to beat the 7
  const auto r = move_request(g, 12);
  EXPECT_EQ(r["type"], "move");
  EXPECT_EQ(r["protocol"], 1);
  EXPECT_EQ(r["game"], 12);
  EXPECT_EQ(r["seat"], "landlord_up");
  EXPECT_EQ(r["hand"], cards("99 T J"));
  EXPECT_EQ(r["three_landlord_cards"], cards("3 4 K"));
  EXPECT_EQ(r["history"], nlohmann::json::array({cards("3"), cards("7")}));
  EXPECT_EQ(r["played"]["landlord"], cards("3"));
  EXPECT_EQ(r["played"]["landlord_down"], cards("7"));
  EXPECT_EQ(r["played"]["landlord_up"], nlohmann::json::array());
  EXPECT_EQ(r["cards_left"], (nlohmann::json{{"landlord", 4}, {"landlord_down", 3}, {"landlord_up", 4}}));
  EXPECT_EQ(r["rival_move"], cards("7"));
  EXPECT_EQ(r["bombs"], 0);
  // Answers to a 7 from 99TJ: 9, T, J or pass, in legal_moves() order.
  ASSERT_EQ(r["legal_moves"].size(), g.legal_moves().size());
  for (std::size_t i = 0; i < g.legal_moves().size(); ++i) EXPECT_EQ(r["legal_moves"][i], g.legal_moves()[i].cards());
  std::set<std::vector<int>> legal;
  for (const auto& m : r["legal_moves"]) legal.insert(m.get<std::vector<int>>());
  EXPECT_EQ(legal, (std::set<std::vector<int>>{{}, {9}, {10}, {11}}));
  EXPECT_EQ(r.dump().find("66"), std::string::npos);  // nothing of another hand
}

TEST(SeatProtocol, AnswersNameAMoveByCardsTextOrIndex) {
  Game g = position("33 4 5 K", "66 7 8", "99 T J");
  const auto& legal = g.legal_moves();  // the landlord leads
  const auto at = [&](std::string_view text) {
    return static_cast<std::size_t>(std::find(legal.begin(), legal.end(), parse_cards(text)) - legal.begin());
  };
  EXPECT_EQ(move_from_answer({{"move", {3, 3}}}, legal), at("33"));
  EXPECT_EQ(move_from_answer({{"move", "K"}}, legal), at("K"));
  EXPECT_EQ(move_from_answer({{"index", 2}}, legal), 2u);
  g.play(parse_cards("K"));
  EXPECT_EQ(g.legal_moves()[move_from_answer({{"move", nlohmann::json::array()}}, g.legal_moves())], CardCounts{});
  EXPECT_EQ(g.legal_moves()[move_from_answer({{"move", "pass"}}, g.legal_moves())], CardCounts{});
}

TEST(SeatProtocol, BadAnswersSayWhatIsWrong) {
  Game g = position("33 4 5 K", "66 7 8", "99 T J");
  const auto& legal = g.legal_moves();
  const auto err = [&](const nlohmann::json& a) { return error_of([&] { move_from_answer(a, legal); }); };
  EXPECT_NE(err(nlohmann::json::array({3})).find("expected an object"), std::string::npos);
  EXPECT_NE(err(nlohmann::json::object()).find("exactly one of \"move\" and \"index\""), std::string::npos);
  EXPECT_NE(err({{"move", {3}}, {"index", 0}}).find("exactly one of"), std::string::npos);
  EXPECT_NE(err({{"index", 99}}).find("\"index\": 99 is not an index into the 5 legal moves (0..4)"), std::string::npos)
      << err({{"index", 99}});
  EXPECT_NE(err({{"index", "1"}}).find("is not an index"), std::string::npos);
  EXPECT_NE(err({{"move", {4, 4}}}).find("illegal move [4,4] (44): not one of the 5 legal moves"), std::string::npos)
      << err({{"move", {4, 4}}});
  EXPECT_NE(err({{"move", {16}}}).find("\"move\"[0] = 16 is not a card"), std::string::npos) << err({{"move", {16}}});
  EXPECT_NE(err({{"move", 3}}).find("must be a list of card integers or card text"), std::string::npos);
}

TEST(SeatProtocol, GameOverCarriesTheRecordAndTheSeatsScore) {
  Game g = position("33", "4", "5");
  g.play(parse_cards("33"));
  ASSERT_TRUE(g.over());
  const auto m = game_over_message(g, Seat::LandlordUp, 5);
  EXPECT_EQ(m["type"], "game_over");
  EXPECT_EQ(m["game"], 5);
  EXPECT_EQ(m["winner"], "landlord");
  EXPECT_EQ(m["landlord_won"], true);
  EXPECT_EQ(m["score"], -1.0);
  EXPECT_EQ(m["history"], nlohmann::json::array({cards("33")}));
  EXPECT_EQ(m["deal"]["landlord_up"], cards("5"));
}

TEST(OutsidePlayer, PlaysWholeMatchupsAsTheSameMovesInProcess) {
  const std::string dir = test::make_temp_dir("outside_player");
  {  // the players' destructors close the programs' input and wait for them: the log is whole
    OutsidePlayer landlord(first_move_program(dir + "/landlord.log"));
    OutsidePlayer peasants(first_move_program(dir + "/peasants.log"));
    FirstMovePlayer first;
    RulePlayer rule;
    const MatchupOptions o{.deals = 30, .seed = 4, .swap = true, .parallel_games = 8};
    const auto outside = evaluate_matchup(landlord, rule, o);
    const auto inside = evaluate_matchup(first, rule, o);
    EXPECT_EQ(outside.a_scores, inside.a_scores);
    const auto both = evaluate_matchup(landlord, peasants, o);
    EXPECT_EQ(both.a_scores, evaluate_matchup(first, first, o).a_scores);
  }

  // The `landlord` program took part in 120 games (two matchups, both roles in each), each
  // ended by one game_over per seat asked, replaying to the finish it reports.
  std::ifstream log(dir + "/landlord.log");
  std::map<std::pair<std::int64_t, std::string>, int> requests;
  int game_overs = 0;
  for (std::string line; std::getline(log, line);) {
    const auto m = nlohmann::json::parse(line);
    const auto key = std::make_pair(m["game"].get<std::int64_t>(), m["seat"].get<std::string>());
    if (m["type"] == "move") {
      ++requests[key];
      EXPECT_GT(m["legal_moves"].size(), 1u);  // forced moves are not asked
      continue;
    }
    ++game_overs;
    EXPECT_EQ(requests.count(key), 1u) << "game_over for a seat never asked: " << line;
    Game g = replay(record_from_json(m));
    ASSERT_TRUE(g.over());
    EXPECT_EQ(seat_name(g.winner()), m["winner"].get<std::string>());
    EXPECT_EQ(g.score(seat_from_name(m["seat"].get<std::string>())), m["score"].get<double>());
  }
  EXPECT_EQ(static_cast<std::size_t>(game_overs), requests.size());
  std::set<std::int64_t> games;
  for (const auto& [key, n] : requests) games.insert(key.first);
  EXPECT_EQ(games.size(), 120u);  // one game number per game it took part in
}

TEST(OutsidePlayer, PeasantSeatsRunAProcessEach) {
  const std::string dir = test::make_temp_dir("outside_seats");
  {
    OutsidePlayer peasants(first_move_program(dir + "/log"));
    RandomPlayer random(1);
    evaluate_matchup(random, peasants, {.deals = 5, .seed = 2});
  }
  // Both processes append to the one log (each is asked only for its own seat).
  std::ifstream log(dir + "/log");
  std::set<std::string> seats;
  for (std::string line; std::getline(log, line);) seats.insert(nlohmann::json::parse(line)["seat"]);
  EXPECT_EQ(seats, (std::set<std::string>{"landlord_down", "landlord_up"}));
}

TEST(OutsidePlayer, APeasantPairMixesAnOutsideSeatWithAnInsideOne) {
  OutsidePlayer down(first_move_program());
  FirstMovePlayer first;
  RulePlayer rule, rule2;
  PeasantPair mixed(down, rule), inside(first, rule2);
  RandomPlayer r1(3), r2(3);
  const MatchupOptions o{.deals = 20, .seed = 9, .parallel_games = 4};
  EXPECT_EQ(evaluate_matchup(r1, mixed, o).a_scores, evaluate_matchup(r2, inside, o).a_scores);
}

// The error of a matchup of `program` as landlord against random peasants.
std::string landlord_error(const std::string& program, std::chrono::milliseconds timeout = 10s) {
  OutsidePlayer landlord(program, timeout);
  RandomPlayer peasants(0);
  return error_of([&] { evaluate_matchup(landlord, peasants, {.deals = 10, .seed = 0, .parallel_games = 1}); });
}

TEST(OutsidePlayer, AMalformedAnswerNamesTheSeatAndTheLine) {
  // Three good answers, then a line that is not JSON.
  const std::string e = landlord_error(
      "n=0; while IFS= read -r line; do case \"$line\" in *'\"type\":\"move\"'*) n=$((n+1)); "
      "if [ $n -le 3 ]; then echo '{\"index\": 0}'; else echo 'play 33'; fi;; esac; done");
  EXPECT_NE(e.find("seat landlord (`n=0;"), std::string::npos) << e;
  EXPECT_NE(e.find("answer line 4 is not JSON"), std::string::npos) << e;
  EXPECT_NE(e.find(": play 33"), std::string::npos) << e;
  EXPECT_NE(e.find("no result is reported"), std::string::npos) << e;
}

TEST(OutsidePlayer, AnIllegalAnswerNamesTheMoveTheSeatAndTheLine) {
  const std::string e = landlord_error("read -r line; echo '{\"move\": [30, 30]}'");
  EXPECT_NE(e.find("seat landlord (`read -r line;"), std::string::npos) << e;
  EXPECT_NE(e.find("answer line 1 (game 0, move 1)"), std::string::npos) << e;
  EXPECT_NE(e.find("\"move\" hold 30 more than 1 time (the deck has 1)"), std::string::npos) << e;
  const std::string illegal = landlord_error("read -r line; echo '{\"move\": [3, 3, 3, 3, 3]}'");
  EXPECT_NE(illegal.find("\"move\""), std::string::npos) << illegal;
  const std::string not_held = landlord_error("read -r line; echo '{\"index\": -1}'");
  EXPECT_NE(not_held.find("\"index\": -1 is not an index"), std::string::npos) << not_held;
}

TEST(OutsidePlayer, ALateAnswerIsATimeoutNamingTheSeat) {
  const auto start = std::chrono::steady_clock::now();
  const std::string e = landlord_error("cat > /dev/null", 200ms);
  EXPECT_NE(e.find("seat landlord (`cat > /dev/null`): no answer within 0.2 s (game 0, move 1"), std::string::npos)
      << e;
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
}

TEST(OutsidePlayer, AProgramThatExitsIsReportedWithItsStatus) {
  const std::string e = landlord_error("read -r line; echo 'oops' >&2; exit 4");
  EXPECT_NE(e.find("closed its output before answer line 1 (exited with status 4; game 0, move 1)"),
            std::string::npos)
      << e;
  const std::string missing = landlord_error("/nonexistent/bot");
  EXPECT_NE(missing.find("exited with status 127"), std::string::npos) << missing;
}

TEST(OutsidePlayer, AProgramThatQuitsAfterAGameIsReportedAtItsNextRequest) {
  // It plays game 0 to the end and exits on its game_over: the game_over write or the next
  // request finds it gone, and game 1's first request is the error either way.
  const std::string e = landlord_error(
      "while IFS= read -r line; do case \"$line\" in *game_over*) exit 0;; *) echo '{\"index\": 0}';; esac; done");
  EXPECT_NE(e.find("seat landlord (`while"), std::string::npos) << e;
  EXPECT_TRUE(e.find("stopped reading its input") != std::string::npos ||  // which one depends on
              e.find("closed its output before answer line") != std::string::npos)  // when it exits
      << e;
  EXPECT_NE(e.find("exited with status 0"), std::string::npos) << e;
  EXPECT_NE(e.find("game 1, move 1)"), std::string::npos) << e;
  EXPECT_NE(e.find("after 1 of 10 games"), std::string::npos) << e;
}

TEST(OutsidePlayer, RefusesAnEmptyCommandOrTimeout) {
  EXPECT_NE(error_of([] { OutsidePlayer p("  "); }).find("the command is empty"), std::string::npos);
  EXPECT_NE(error_of([] { OutsidePlayer p("cat", 0ms); }).find("timeout must be > 0"), std::string::npos);
}

}  // namespace
}  // namespace rlzoo::doudizhu
