#include "apps/doudizhu_agents.h"

#include <filesystem>

#include <fmt/format.h>

#include "rl/agent_checkpoint.h"
#include "algorithms/dmc/dmc.h"
#include "algorithms/dmc/dmc_player.h"
#include "core/common/error.h"
#include "envs/doudizhu/outside_player.h"
#include "envs/doudizhu/random_player.h"
#include "envs/doudizhu/rule_player.h"

namespace rlzoo::cli {

namespace fs = std::filesystem;

std::shared_ptr<dmc::SeatNets> load_doudizhu_nets(const std::string& spec) {
  if (!fs::exists(spec))
    throw UserError(fmt::format("agent '{}': not an existing run directory, checkpoint folder or DouZero checkpoint "
                                "folder",
                                spec));
  if (fs::exists(fs::path(spec) / "landlord.ckpt")) {
    auto nets = std::make_shared<dmc::SeatNets>();
    dmc::load_douzero_folder(*nets, spec);
    return nets;
  }
  auto agent = load_agent(resolve_agent_dir(spec));
  auto* dmc_agent = dynamic_cast<dmc::DmcAgent*>(agent.get());
  if (!dmc_agent)
    throw UserError(fmt::format("agent '{}' is a {} agent on {}; DouDizhu needs a dmc agent", spec,
                                agent->algorithm(), agent->env_spec().id));
  return dmc_agent->shared_nets();
}

std::unique_ptr<doudizhu::Player> make_doudizhu_player(const std::string& spec, std::uint64_t seed,
                                                       std::chrono::milliseconds answer_timeout) {
  if (spec == "random") return std::make_unique<doudizhu::RandomPlayer>(seed);
  if (spec == "rule") return std::make_unique<doudizhu::RulePlayer>();
  if (spec.starts_with(kOutsidePrefix))
    return std::make_unique<doudizhu::OutsidePlayer>(spec.substr(kOutsidePrefix.size()), answer_timeout);
  if (!fs::exists(spec))
    throw UserError(fmt::format("agent '{}': not 'random', 'rule', 'exec:COMMAND' (an outside program), or an "
                                "existing run directory, checkpoint folder or DouZero checkpoint folder",
                                spec));
  const bool douzero = fs::exists(fs::path(spec) / "landlord.ckpt");
  return std::make_unique<dmc::DmcPlayer>(load_doudizhu_nets(spec), douzero ? "douzero:" + spec : spec);
}

}  // namespace rlzoo::cli
