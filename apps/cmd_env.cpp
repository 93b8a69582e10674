// `rlzoo env info ID`, `rlzoo env check ID...` (the conformance checks, for users' own envs)
// and `rlzoo env replay` (dynamics checks against other implementations).
#include <fmt/format.h>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "apps/cli_checks.h"
#include "apps/commands.h"
#include "apps/replay.h"
#include "core/common/error.h"
#include "core/common/strings.h"
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

// The keyword arguments an env cannot be made without (required, no default), "" if none.
std::string required_kwargs(const EnvEntry& entry) {
  std::vector<std::string> keys;
  if (entry.describe_kwargs)
    for (const auto& f : entry.describe_kwargs())
      if (f.required) keys.push_back(fmt::format("{} ({})", f.key, f.doc));
  return join(keys);
}

// Prints one report per env and, for several, a summary naming each failure; exits 1 when any
// env fails (2 for bad arguments, as usual). With --all, an env that needs kwargs nobody gave
// is skipped, saying which, and one that cannot be made with its defaults is a failure of that
// env while the others are still checked.
void check_envs(const CheckOptions& o) {
  std::vector<std::string> ids = o.ids;
  if (o.all) {
    if (!ids.empty()) throw UserError("env check: give env ids or --all, not both");
    if (!o.kwargs.empty()) throw UserError("env check: --kwargs applies to one env, not to --all");
    ids = env_registry().names();
  }
  if (ids.empty()) throw UserError("env check: give at least one env id (see `rlzoo list`) or --all");
  for (const auto& id : ids) env_registry().get(id);  // an unknown id is bad input: nothing checked
  const YAML::Node kwargs = o.kwargs.empty() ? YAML::Node() : load_yaml_string(o.kwargs, "--kwargs");
  std::vector<std::string> failed, skipped;
  for (const auto& id : ids) {
    const EnvEntry& entry = env_registry().get(id);
    if (o.all) {
      if (const std::string needs = required_kwargs(entry); !needs.empty()) {
        fmt::print("skipped {}: it needs kwargs: {}; check it with rlzoo env check {} --kwargs '{{...}}'\n", id, needs,
                   id);
        skipped.push_back(id);
        continue;
      }
    }
    ConformanceOptions opts;
    opts.seeds = o.seeds;
    opts.episodes_per_seed = o.episodes;
    opts.max_steps_per_episode = o.max_steps;
    opts.expect_seed_dependence = !o.deterministic;  // check_env() knows the envs registered as deterministic
    try {
      const ConformanceReport report = check_env(id, kwargs, opts);
      fmt::print("{}: {}\n", report.ok() ? "ok    " : "FAILED", report.summary());
      if (!report.ok()) failed.push_back(id);
    } catch (const UserError& e) {
      if (!o.all) throw;  // the ids and kwargs the user gave: bad input, as always
      fmt::print("FAILED: {} cannot be made with its defaults: {}\n", id, e.what());
      failed.push_back(id);
    }
    std::fflush(stdout);
  }
  if (ids.size() > 1) {
    const std::size_t checked = ids.size() - skipped.size();
    fmt::print("{} of {} envs passed{}{}\n", checked - failed.size(), checked,
               failed.empty() ? "" : "; failed: " + join(failed),
               skipped.empty() ? "" : fmt::format("; {} skipped (need kwargs): {}", skipped.size(), join(skipped)));
  }
  if (!failed.empty()) throw ExitWith{1};
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
  check->add_option("--episodes", co->episodes, "Episodes per seed")->capture_default_str()->check(positive());
  check->add_option("--max-steps", co->max_steps, "Step budget of one episode (0: the time limit, else 10000)")
      ->capture_default_str();
  check->add_flag("--deterministic", co->deterministic,
                  "The env does not depend on its seed (fixed start, deterministic rules): skip the divergence check "
                  "(the built-in deterministic envs declare it themselves)");
  check->callback([co] { check_envs(*co); });

  auto* replay = env->add_subcommand(
      "replay",
      "Replay action sequences from given states. Reads JSON lines {\"env\", \"initial_state\", \"actions\"} on "
      "stdin, prints one JSON line {\"obs\", \"rewards\", \"terminated\", \"truncated\", \"state\"} per input");
  replay->callback([] { replay_stream(std::cin, std::cout); });
}

}  // namespace rlzoo::cli
