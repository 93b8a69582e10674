#include "envs/doudizhu/seat_protocol.h"

#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "core/common/error.h"

namespace rlzoo::doudizhu {

namespace {

nlohmann::json card_lists(std::span<const CardCounts> moves) {
  nlohmann::json out = nlohmann::json::array();
  for (CardCounts m : moves) out.push_back(m.cards());
  return out;
}

// {"landlord": f(landlord), "landlord_down": ..., "landlord_up": ...}
template <class F>
nlohmann::json per_seat(F&& f) {
  nlohmann::json out = nlohmann::json::object();
  for (Seat s : kSeats) out[std::string(seat_name(s))] = f(s);
  return out;
}

std::string describe(CardCounts m) { return fmt::format("{} ({})", nlohmann::json(m.cards()).dump(), format_cards(m)); }

}  // namespace

nlohmann::json move_request(Game& g, std::int64_t game) {
  const Seat s = g.acting();
  return {{"type", "move"},
          {"protocol", kSeatProtocolVersion},
          {"game", game},
          {"seat", seat_name(s)},
          {"hand", g.hand(s).cards()},
          {"three_landlord_cards", g.deal().three_landlord_cards.cards()},
          {"history", card_lists(g.history())},
          {"played", per_seat([&](Seat t) { return g.played(t).cards(); })},
          {"cards_left", per_seat([&](Seat t) { return g.hand(t).size(); })},
          {"rival_move", g.rival_move().cards()},
          {"bombs", g.bombs()},
          {"legal_moves", card_lists(g.legal_moves())}};
}

std::size_t move_from_answer(const nlohmann::json& answer, std::span<const CardCounts> legal) {
  if (!answer.is_object())
    throw UserError(fmt::format("expected an object {{\"move\": [cards]}} or {{\"index\": i}}, got {}", answer.dump()));
  const bool has_move = answer.contains("move"), has_index = answer.contains("index");
  if (has_move == has_index)
    throw UserError(fmt::format("expected exactly one of \"move\" and \"index\", got {}", answer.dump()));
  if (has_index) {
    const auto& i = answer.at("index");
    if (!i.is_number_integer() || i.get<std::int64_t>() < 0 ||
        i.get<std::int64_t>() >= static_cast<std::int64_t>(legal.size()))
      throw UserError(fmt::format("\"index\": {} is not an index into the {} legal moves (0..{})", i.dump(),
                                  legal.size(), legal.size() - 1));
    return static_cast<std::size_t>(i.get<std::int64_t>());
  }
  const auto& m = answer.at("move");
  CardCounts move;
  if (m.is_string()) move = parse_cards(m.get<std::string>());
  else if (m.is_array()) move = cards_from_json(m, "\"move\"");
  else throw UserError(fmt::format("\"move\" must be a list of card integers or card text, got {}", m.dump()));
  const auto it = std::find(legal.begin(), legal.end(), move);
  if (it == legal.end())
    throw UserError(fmt::format("illegal move {}: not one of the {} legal moves", describe(move), legal.size()));
  return static_cast<std::size_t>(it - legal.begin());
}

nlohmann::json game_over_message(const Game& g, Seat seat, std::int64_t game) {
  const auto record = record_to_json({g.deal(), std::vector<CardCounts>(g.history().begin(), g.history().end())});
  return {{"type", "game_over"},
          {"protocol", kSeatProtocolVersion},
          {"game", game},
          {"seat", seat_name(seat)},
          {"winner", seat_name(g.winner())},
          {"landlord_won", g.landlord_won()},
          {"bombs", g.bombs()},
          {"score", g.score(seat)},
          {"deal", record.at("deal")},
          {"history", record.at("history")}};
}

}  // namespace rlzoo::doudizhu
