#include "envs/doudizhu/game.h"

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/common/error.h"
#include "envs/doudizhu/legal_moves.h"

namespace rlzoo::doudizhu {

std::string_view seat_name(Seat s) {
  switch (s) {
    case Seat::Landlord: return "landlord";
    case Seat::LandlordDown: return "landlord_down";
    case Seat::LandlordUp: return "landlord_up";
  }
  return "?";
}

Seat seat_from_name(std::string_view name) {
  for (Seat s : kSeats)
    if (seat_name(s) == name) return s;
  throw UserError(fmt::format("unknown position '{}' (valid: landlord, landlord_up, landlord_down)", name));
}

Objective objective_from_name(std::string_view name) {
  if (name == "adp") return Objective::Adp;
  if (name == "wp") return Objective::Wp;
  if (name == "logadp") return Objective::LogAdp;
  throw UserError(fmt::format("unknown objective '{}' (valid: adp, wp, logadp)", name));
}

std::string_view objective_name(Objective o) {
  switch (o) {
    case Objective::Adp: return "adp";
    case Objective::Wp: return "wp";
    case Objective::LogAdp: return "logadp";
  }
  return "?";
}

Deal Deal::random(Rng& rng) {
  std::array<int, kDeckSize> deck{};
  int k = 0;
  for (int r = 0; r < kNumRanks; ++r)
    for (int c = 0; c < copies_in_deck(r); ++c) deck[static_cast<std::size_t>(k++)] = r;
  for (std::size_t i = deck.size() - 1; i > 0; --i) std::swap(deck[i], deck[rng.below(i + 1)]);
  Deal d;
  for (std::size_t i = 0; i < deck.size(); ++i) {
    const Seat s = i < 20 ? Seat::Landlord : i < 37 ? Seat::LandlordUp : Seat::LandlordDown;
    d.hands[static_cast<std::size_t>(seat_index(s))].add(deck[i]);
    if (i >= 17 && i < 20) d.three_landlord_cards.add(deck[i]);
  }
  return d;
}

void Deal::validate(std::string_view where) const {
  static constexpr std::array<int, 3> kSizes = {20, 17, 17};
  CardCounts all;
  for (Seat s : kSeats) {
    const CardCounts h = hands[static_cast<std::size_t>(seat_index(s))];
    if (h.size() != kSizes[static_cast<std::size_t>(seat_index(s))])
      throw UserError(fmt::format("{}.{} holds {} cards; it must hold {}", where, seat_name(s), h.size(),
                                  kSizes[static_cast<std::size_t>(seat_index(s))]));
    if (!CardCounts::full_deck().contains(all + h))
      throw UserError(fmt::format("{}: the hands together hold more copies of a card than the deck ({} after {})",
                                  where, format_card_list(all + h), seat_name(s)));
    all += h;
  }
  if (three_landlord_cards.size() != 3 || !hands[0].contains(three_landlord_cards))
    throw UserError(fmt::format("{}.three_landlord_cards {} must be 3 cards of the landlord's hand", where,
                                format_card_list(three_landlord_cards)));
}

Game::Game(const Deal& deal) {
  history_.reserve(kMaxMoves);
  legal_.reserve(512);
  reset(deal);
}

void Game::reset(const Deal& deal) {
  deal_ = deal;
  hands_ = deal.hands;
  played_ = {};
  last_action_ = {};
  history_.clear();
  legal_valid_ = false;
  rival_ = {};
  rival_info_ = {MoveType::Pass, -1, 0};
  acting_ = Seat::Landlord;
  bombs_ = 0;
  over_ = false;
}

Seat Game::winner() const {
  RLZOO_CHECK(over_, "winner() of a game that is not over");
  for (Seat s : kSeats)
    if (hand(s).empty()) return s;
  RLZOO_CHECK(false, "a finished game without an empty hand");
  return Seat::Landlord;
}

double Game::reward(Seat s, Objective objective) const {
  const double sign = landlord_won() == (s == Seat::Landlord) ? 1.0 : -1.0;
  switch (objective) {
    case Objective::Adp: return sign * static_cast<double>(1LL << bombs_);
    case Objective::Wp: return sign;
    case Objective::LogAdp: return sign * (bombs_ + 1);
  }
  return 0.0;
}

double Game::score(Seat s) const {
  const double stake = static_cast<double>(1LL << bombs_);
  return s == Seat::Landlord ? (landlord_won() ? 2 : -2) * stake : (landlord_won() ? -1 : 1) * stake;
}

const std::vector<CardCounts>& Game::legal_moves() {
  if (!legal_valid_) {
    if (over_) legal_.clear();
    else generate_legal_moves(hand(acting_), rival_, rival_info_, legal_);
    legal_valid_ = true;
  }
  return legal_;
}

void Game::play(CardCounts move) {
  if (over_) throw UserError("the game is over; no more moves");
  const auto& legal = legal_moves();
  if (std::find(legal.begin(), legal.end(), move) == legal.end()) {
    std::string why = !hand(acting_).contains(move) ? "the hand does not hold these cards"
                      : move.empty()                ? "the leader cannot pass"
                      : rival_.empty()              ? "it is not a valid combination"
                                                    : "it does not beat " + format_cards(rival_);
    throw UserError(fmt::format("{} cannot play {} ({}); hand: {}", seat_name(acting_), format_cards(move), why,
                                format_cards(hand(acting_))));
  }
  apply(move);
}

void Game::play_index(std::size_t i) {
  const auto& legal = legal_moves();
  RLZOO_CHECK(i < legal.size(), fmt::format("move index {} of {} legal moves", i, legal.size()));
  apply(legal[i]);
}

void Game::apply(CardCounts move) {
  const auto s = static_cast<std::size_t>(seat_index(acting_));
  history_.push_back(move);
  last_action_[s] = move;
  if (!move.empty()) {
    hands_[s] -= move;
    played_[s] += move;
    const MoveInfo info = classify_move(move);
    if (is_bomb_or_rocket(info.type)) ++bombs_;
    rival_ = move;
    rival_info_ = info;
    if (hands_[s].empty()) over_ = true;
  } else if (history_.size() >= 2 && history_[history_.size() - 2].empty()) {
    rival_ = {};  // two passes: the last player to play leads
    rival_info_ = {MoveType::Pass, -1, 0};
  }
  acting_ = next_seat(acting_);
  legal_valid_ = false;
}

// ---- records ----

CardCounts cards_from_json(const nlohmann::json& j, std::string_view where) {
  if (!j.is_array()) throw UserError(fmt::format("{} must be a list of card integers, got {}", where, j.dump()));
  std::vector<int> cards;
  for (std::size_t i = 0; i < j.size(); ++i) {
    if (!j[i].is_number_integer())
      throw UserError(fmt::format("{}[{}] must be a card integer, got {}", where, i, j[i].dump()));
    cards.push_back(j[i].get<int>());
  }
  return CardCounts::from_cards(cards, where);
}

namespace {

const nlohmann::json& field(const nlohmann::json& j, const char* key, std::string_view where) {
  if (!j.is_object() || !j.contains(key)) throw UserError(fmt::format("{}: missing \"{}\"", where, key));
  return j.at(key);
}

}  // namespace

Deal deal_from_json(const nlohmann::json& j, std::string_view where) {
  Deal d;
  for (Seat s : kSeats)
    d.hands[static_cast<std::size_t>(seat_index(s))] =
        cards_from_json(field(j, seat_name(s).data(), where), fmt::format("{}.{}", where, seat_name(s)));
  d.three_landlord_cards = cards_from_json(field(j, "three_landlord_cards", where),
                                           fmt::format("{}.three_landlord_cards", where));
  d.validate(where);
  return d;
}

nlohmann::json deal_to_json(const Deal& d) {
  nlohmann::json j;
  for (Seat s : kSeats) j[std::string(seat_name(s))] = d.hands[static_cast<std::size_t>(seat_index(s))].cards();
  j["three_landlord_cards"] = d.three_landlord_cards.cards();
  return j;
}

std::vector<CardCounts> moves_from_json(const nlohmann::json& j, std::string_view where) {
  if (!j.is_array()) throw UserError(fmt::format("{} must be a list of moves, got {}", where, j.dump()));
  std::vector<CardCounts> moves;
  for (std::size_t i = 0; i < j.size(); ++i) moves.push_back(cards_from_json(j[i], fmt::format("{}[{}]", where, i)));
  return moves;
}

nlohmann::json record_to_json(const GameRecord& r) {
  nlohmann::json history = nlohmann::json::array();
  for (CardCounts m : r.history) history.push_back(m.cards());
  return {{"deal", deal_to_json(r.deal)}, {"history", history}};
}

GameRecord record_from_json(const nlohmann::json& j, std::string_view where) {
  GameRecord r;
  r.deal = deal_from_json(field(j, "deal", where), fmt::format("{}.deal", where));
  r.history = moves_from_json(field(j, "history", where), fmt::format("{}.history", where));
  return r;
}

Game replay(const GameRecord& r) {
  Game g(r.deal);
  for (std::size_t i = 0; i < r.history.size(); ++i) {
    try {
      g.play(r.history[i]);
    } catch (const UserError& e) {
      throw UserError(fmt::format("history[{}]: {}", i, e.what()));
    }
  }
  return g;
}

}  // namespace rlzoo::doudizhu
