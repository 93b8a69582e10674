// `rlzoo env info ID`, `rlzoo env check ID...` (the conformance checks, for users' own envs)
// and `rlzoo env replay` (dynamics checks against other implementations).
#include <fmt/format.h>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "apps/commands.h"
#include "apps/replay.h"
#include "core/common/error.h"
#include "core/config/yaml_io.h"
#include "core/registry/check_env.h"
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
  if (e.describe_kwargs) {
    const auto lines = describe_lines(e.describe_kwargs());
    fmt::print("kwargs:{}\n", lines.empty() ? "            none" : "");
    for (const auto& line : lines) fmt::print("  {}\n", line);
  }
}

struct CheckOptions {
  std::vector<std::string> ids;
  bool all = false;
  std::string kwargs;
  std::vector<std::uint64_t> seeds{11, 22, 33};
  int episodes = 2;
  std::int64_t max_steps = 0;
  bool deterministic = false;
};

// Prints one report per env; exits 1 when any env fails (2 for bad arguments, as usual).
void check_envs(const CheckOptions& o) {
  std::vector<std::string> ids = o.ids;
  if (o.all) {
    if (!ids.empty()) throw UserError("env check: give env ids or --all, not both");
    if (!o.kwargs.empty()) throw UserError("env check: --kwargs applies to one env, not to --all");
    ids = env_registry().names();
  }
  if (ids.empty()) throw UserError("env check: give at least one env id (see `rlzoo list`) or --all");
  const YAML::Node kwargs = o.kwargs.empty() ? YAML::Node() : load_yaml_string(o.kwargs, "--kwargs");
  ConformanceOptions opts;
  opts.seeds = o.seeds;
  opts.episodes_per_seed = o.episodes;
  opts.max_steps_per_episode = o.max_steps;
  opts.expect_seed_dependence = !o.deterministic;
  int failed = 0;
  for (const auto& id : ids) {
    const ConformanceReport report = check_env(id, kwargs, opts);
    fmt::print("{}: {}\n", report.ok() ? "ok    " : "FAILED", report.summary());
    std::fflush(stdout);
    failed += report.ok() ? 0 : 1;
  }
  if (ids.size() > 1) fmt::print("{} of {} envs passed\n", ids.size() - failed, ids.size());
  if (failed > 0) throw ExitWith{1};
}

}  // namespace

void add_env_commands(CLI::App& app) {
  auto* env = app.add_subcommand("env", "Inspect and check environments");
  env->require_subcommand(1);

  auto* info = env->add_subcommand("info", "Show an env's spaces and limits");
  auto id = std::make_shared<std::string>();
  info->add_option("id", *id, "Env id, e.g. CartPole-v1")->required();
  info->callback([id] { print_env_info(*id); });

  auto* check = env->add_subcommand(
      "check",
      "Run the conformance checks on registered envs (spaces, seeding, episode ends, statistics, masks, saved states); "
      "exit status 1 when one fails");
  auto co = std::make_shared<CheckOptions>();
  check->add_option("ids", co->ids, "Env ids, e.g. CartPole-v1");
  check->add_flag("--all", co->all, "Check every registered env");
  check->add_option("--kwargs", co->kwargs, "Keyword arguments of the env as YAML, e.g. '{g: 9.81}'");
  check->add_option("--seeds", co->seeds, "Env seeds, one trajectory each (at least two for the divergence check)")
      ->capture_default_str();
  check->add_option("--episodes", co->episodes, "Episodes per seed")->capture_default_str()->check(CLI::PositiveNumber);
  check->add_option("--max-steps", co->max_steps, "Step budget of one episode (0: the time limit, else 10000)")
      ->capture_default_str();
  check->add_flag("--deterministic", co->deterministic,
                  "The env does not depend on its seed (fixed start, deterministic rules): skip the divergence check");
  check->callback([co] { check_envs(*co); });

  auto* replay = env->add_subcommand(
      "replay",
      "Replay action sequences from given states. Reads JSON lines {\"env\", \"initial_state\", \"actions\"} on "
      "stdin, prints one JSON line {\"obs\", \"rewards\", \"terminated\", \"truncated\", \"state\"} per input");
  replay->callback([] { replay_stream(std::cin, std::cout); });
}

}  // namespace rlzoo::cli
