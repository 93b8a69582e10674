// `rlzoo env info ID` and `rlzoo env replay` (dynamics checks against other implementations).
#include <fmt/format.h>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

#include "apps/commands.h"
#include "apps/replay.h"
#include "core/registry/env_registry.h"

namespace rlzoo::cli {

namespace {

void print_env_info(const std::string& id) {
  const EnvEntry& e = env_registry().get(id);
  auto env = make_env(id);
  fmt::print("id:                {}\n", id);
  fmt::print("description:       {}\n", e.description);
  fmt::print("observation space: {}\n", env->observation_space().describe());
  fmt::print("action space:      {}\n", env->action_space().describe());
  fmt::print("max_episode_steps: {}\n", e.max_episode_steps > 0 ? std::to_string(e.max_episode_steps) : "none");
  fmt::print("reward_threshold:  {}\n", e.reward_threshold ? fmt::format("{}", *e.reward_threshold) : "none");
  fmt::print("agents:            {}\n", env->spec().num_agents);
  fmt::print("action mask:       {}\n", env->spec().has_action_mask ? "yes" : "no");
}

}  // namespace

void add_env_commands(CLI::App& app) {
  auto* env = app.add_subcommand("env", "Inspect and check environments");
  env->require_subcommand(1);

  auto* info = env->add_subcommand("info", "Show an env's spaces and limits");
  auto id = std::make_shared<std::string>();
  info->add_option("id", *id, "Env id, e.g. CartPole-v1")->required();
  info->callback([id] { print_env_info(*id); });

  auto* replay = env->add_subcommand(
      "replay",
      "Replay action sequences from given states. Reads JSON lines {\"env\", \"initial_state\", \"actions\"} on "
      "stdin, prints one JSON line {\"obs\", \"rewards\", \"terminated\", \"truncated\", \"state\"} per input");
  replay->callback([] { replay_stream(std::cin, std::cout); });
}

}  // namespace rlzoo::cli
