// `rlzoo list [envs]`: what is registered.
#include <fmt/format.h>

#include "apps/commands.h"
#include "core/registry/env_registry.h"

namespace rlzoo::cli {

namespace {
void print_envs() {
  fmt::print("envs:\n");
  for (const auto& id : env_registry().names()) {
    const EnvEntry& e = env_registry().get(id);
    fmt::print("  {:<28} {}\n", id, e.description);
  }
}
}  // namespace

void add_list_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("list", "List registered envs (and, as they land, algorithms and presets)");
  auto kind = std::make_shared<std::string>("all");
  cmd->add_option("what", *kind, "What to list: all, envs")->check(CLI::IsMember({"all", "envs"}));
  cmd->callback([kind] { print_envs(); });
}

}  // namespace rlzoo::cli
