// Named DouDizhu players for the command line: "random", "rule", a run directory or checkpoint
// folder of a dmc agent, a DouZero checkpoint folder (landlord.ckpt, landlord_up.ckpt,
// landlord_down.ckpt), or "exec:COMMAND", a program outside rlzoo speaking the seat protocol
// (envs/doudizhu/seat_protocol.h), one process per seat.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "algorithms/dmc/seat_nets.h"
#include "envs/doudizhu/player.h"

namespace rlzoo::cli {

// The prefix that marks an outside program.
inline constexpr std::string_view kOutsidePrefix = "exec:";

// Throws UserError listing the accepted forms when `spec` is none of them. `answer_timeout`
// bounds each answer of an outside program.
std::unique_ptr<doudizhu::Player> make_doudizhu_player(
    const std::string& spec, std::uint64_t seed,
    std::chrono::milliseconds answer_timeout = std::chrono::milliseconds(30000));

// The Q-networks of a dmc run directory, checkpoint folder or DouZero checkpoint folder.
// Throws UserError for anything else (naming what `spec` is).
std::shared_ptr<dmc::SeatNets> load_doudizhu_nets(const std::string& spec);

}  // namespace rlzoo::cli
