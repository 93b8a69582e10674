// Named DouDizhu players for the command line: "random", "rule", a run directory or checkpoint
// folder of a dmc agent, or a DouZero checkpoint folder (landlord.ckpt, landlord_up.ckpt,
// landlord_down.ckpt).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "envs/doudizhu/player.h"

namespace rlzoo::cli {

// Throws UserError listing the accepted forms when `spec` is none of them.
std::unique_ptr<doudizhu::Player> make_doudizhu_player(const std::string& spec, std::uint64_t seed);

}  // namespace rlzoo::cli
