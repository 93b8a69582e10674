// `rlzoo list [envs|algos|presets]`: what is registered and which presets ship.
#include <algorithm>
#include <filesystem>
#include <fmt/format.h>

#include "apps/app_paths.h"
#include "apps/commands.h"
#include "core/registry/env_registry.h"
#ifdef RLZOO_WITH_TORCH
#include "rl/algorithm_registry.h"
#endif

namespace rlzoo::cli {

namespace {

void print_envs() {
  fmt::print("envs:\n");
  for (const auto& id : env_registry().names()) fmt::print("  {:<28} {}\n", id, env_registry().get(id).description);
}

#ifdef RLZOO_WITH_TORCH
void print_algos(bool with_hyperparams) {
  fmt::print("algorithms:\n");
  for (const auto& id : algorithm_registry().names()) {
    const auto& e = algorithm_registry().get(id);
    fmt::print("  {:<28} {}\n", id, e.description);
    fmt::print("  {:<28} {}\n", "", e.capabilities.describe());
    if (with_hyperparams)
      for (const auto& line : describe_lines(e.describe_hyperparams())) fmt::print("      {}\n", line);
  }
}
#endif

// The shipped presets (apps/app_paths.h).
void print_presets() {
  namespace fs = std::filesystem;
  const fs::path root = presets_dir();
  fmt::print("presets ({}):\n", root.string());
  if (!fs::is_directory(root)) return;
  std::vector<std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(root))
    if (e.is_regular_file() && e.path().extension() == ".yaml") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  for (const auto& f : files) fmt::print("  {}\n", f);
}

}  // namespace

void add_list_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("list", "List envs, algorithms (with --hyperparams: their settings) and presets");
  auto kind = std::make_shared<std::string>("all");
  auto hyper = std::make_shared<bool>(false);
  cmd->add_option("what", *kind, "all, envs, algos, presets")->check(CLI::IsMember({"all", "envs", "algos", "presets"}));
  cmd->add_flag("--hyperparams", *hyper, "Also list every algorithm's hyperparameters with defaults and docs");
  cmd->callback([kind, hyper] {
    if (*kind == "all" || *kind == "envs") print_envs();
#ifdef RLZOO_WITH_TORCH
    if (*kind == "all" || *kind == "algos") print_algos(*hyper);
#endif
    if (*kind == "all" || *kind == "presets") print_presets();
  });
}

}  // namespace rlzoo::cli
