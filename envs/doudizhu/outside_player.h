// A DouDizhu player that is a program outside rlzoo, speaking the seat protocol
// (seat_protocol.h) on its standard input and output.
//
//  * One process per seat: the command is started (through /bin/sh -c) the first time each
//    seat it plays must choose, so the player of both peasant seats runs two processes, each
//    seeing only its own seat's requests.
//  * Each answer must come within `answer_timeout` of its request (the first includes the
//    program's start-up).
//  * A malformed, illegal or late answer, or a program that exits, is a UserError naming the
//    seat, the command, the answer's line number (its n-th line of output) and the game and
//    move; the evaluation stops there (evaluation.h says how many games had finished).
//  * game_over() sends "game_over" to each of its seats that was asked in that game. It expects
//    no answer; a program that does not take it (it exited, or stopped reading until the
//    timeout) is not written to again, and its seat's next request is the error.
//  * The destructor closes every process's input and gives it a second to exit before it is
//    killed.
#pragma once

#include <array>
#include <chrono>
#include <memory>
#include <string>
#include <unordered_map>

#include "core/platform/line_process.h"
#include "envs/doudizhu/player.h"

namespace rlzoo::doudizhu {

class OutsidePlayer : public Player {
 public:
  explicit OutsidePlayer(std::string command,
                         std::chrono::milliseconds answer_timeout = std::chrono::milliseconds(30000));
  std::string name() const override { return "outside program `" + command_ + "`"; }
  std::size_t choose(Game& g) override;
  void game_over(const Game& g) override;

 private:
  struct InFlight {
    std::int64_t number = 0;
    std::array<bool, 3> asked{};  // by seat
  };
  LineProcess& process(Seat s);
  std::string who(Seat s) const;

  std::string command_;
  std::chrono::milliseconds answer_timeout_;
  std::array<std::unique_ptr<LineProcess>, 3> processes_;  // by seat, started on first use
  std::array<std::string, 3> failed_;                      // by seat: why it cannot be asked again
  std::unordered_map<const Game*, InFlight> games_;       // games in flight (Games are reused)
  std::int64_t next_game_ = 0;
};

}  // namespace rlzoo::doudizhu
