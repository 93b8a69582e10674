#include "envs/doudizhu/outside_player.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/common/error.h"
#include "envs/doudizhu/seat_protocol.h"

namespace rlzoo::doudizhu {

namespace {

using Clock = LineProcess::Clock;

}  // namespace

OutsidePlayer::OutsidePlayer(std::string command, std::chrono::milliseconds answer_timeout)
    : command_(std::move(command)), answer_timeout_(answer_timeout) {
  if (command_.find_first_not_of(" \t") == std::string::npos) throw UserError("outside player: the command is empty");
  if (answer_timeout_.count() <= 0)
    throw UserError(fmt::format("outside player: the answer timeout must be > 0, got {} ms", answer_timeout_.count()));
}

std::string OutsidePlayer::who(Seat s) const { return fmt::format("seat {} (`{}`)", seat_name(s), command_); }

LineProcess& OutsidePlayer::process(Seat s) {
  auto& p = processes_[static_cast<std::size_t>(seat_index(s))];
  if (!p) {
    try {
      p = std::make_unique<LineProcess>(command_);
    } catch (const UserError& e) {
      throw UserError(fmt::format("seat {}: {}", seat_name(s), e.what()));
    }
  }
  return *p;
}

std::size_t OutsidePlayer::choose(Game& g) {
  const Seat s = g.acting();
  auto [it, fresh] = games_.try_emplace(&g);
  if (fresh) it->second.number = next_game_++;
  InFlight& game = it->second;
  game.asked[static_cast<std::size_t>(seat_index(s))] = true;
  const auto where = [&] { return fmt::format("game {}, move {}", game.number, g.history().size() + 1); };

  if (const auto& why = failed_[static_cast<std::size_t>(seat_index(s))]; !why.empty())
    throw UserError(fmt::format("{}: {} ({})", who(s), why, where()));
  LineProcess& p = process(s);
  const auto deadline = Clock::now() + answer_timeout_;
  const double seconds = static_cast<double>(answer_timeout_.count()) / 1000.0;
  switch (p.write_line(move_request(g, game.number).dump(), deadline)) {
    case LineProcess::Status::Ok:
      break;
    case LineProcess::Status::TimedOut:
      throw UserError(fmt::format("{}: did not read its request within {:g} s ({})", who(s), seconds, where()));
    default:
      throw UserError(fmt::format("{}: stopped reading its input ({}; {})", who(s), p.exit_description(), where()));
  }
  const LineProcess::Read r = p.read_line(deadline);
  const std::int64_t line = p.lines_read() + 1;
  switch (r.status) {
    case LineProcess::Status::Ok:
      break;
    case LineProcess::Status::TimedOut:
      throw UserError(fmt::format("{}: no answer within {:g} s ({}; answer line {} never came; --answer-timeout "
                                  "sets the limit)",
                                  who(s), seconds, where(), line));
    case LineProcess::Status::TooLong:
      throw UserError(fmt::format("{}: answer line {} is longer than {} bytes ({})", who(s), line,
                                  LineProcess::kMaxLine, where()));
    case LineProcess::Status::Closed:
      throw UserError(fmt::format("{}: closed its output before answer line {} ({}; {})", who(s), line,
                                  p.exit_description(), where()));
  }
  nlohmann::json answer;
  try {
    answer = nlohmann::json::parse(r.line);
  } catch (const nlohmann::json::parse_error&) {
    throw UserError(fmt::format("{}: answer line {} is not JSON ({}): {}", who(s), p.lines_read(), where(),
                                r.line.substr(0, 200)));
  }
  try {
    return move_from_answer(answer, g.legal_moves());
  } catch (const UserError& e) {
    throw UserError(fmt::format("{}: answer line {} ({}): {}", who(s), p.lines_read(), where(), e.what()));
  }
}

void OutsidePlayer::game_over(const Game& g) {
  const auto it = games_.find(&g);
  if (it == games_.end()) return;
  const InFlight game = it->second;
  games_.erase(it);
  for (Seat s : kSeats) {
    if (!game.asked[static_cast<std::size_t>(seat_index(s))]) continue;
    // No answer is expected, so a failure here is not an error yet (an evaluation that has
    // ended needs nothing more from the program); the seat's next request reports it. A write
    // cut short may have left part of a line in the pipe: nothing more goes to that process.
    auto& why = failed_[static_cast<std::size_t>(seat_index(s))];
    if (!why.empty()) continue;
    LineProcess& p = process(s);
    const auto status = p.write_line(game_over_message(g, s, game.number).dump(), Clock::now() + answer_timeout_);
    if (status == LineProcess::Status::TimedOut)
      why = fmt::format("did not read the game_over of game {} within {:g} s", game.number,
                        static_cast<double>(answer_timeout_.count()) / 1000.0);
    else if (status != LineProcess::Status::Ok)
      why = fmt::format("stopped reading its input before the game_over of game {}: {}", game.number,
                        p.exit_description());
  }
}

}  // namespace rlzoo::doudizhu
