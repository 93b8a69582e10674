// `rlzoo docs cli|presets|capabilities`: print the generated reference pages (docs/cli.md,
// docs/presets.md, docs/capabilities.md; scripts/gen-docs writes them).
#include <fmt/format.h>

#include "apps/commands.h"
#include "apps/docs_reference.h"

namespace rlzoo::cli {

void add_docs_command(CLI::App& app) {
  auto* docs = app.add_subcommand("docs", "Print the generated reference pages (docs/cli.md, docs/presets.md, docs/capabilities.md)");
  docs->require_subcommand(1);
  auto* cli = docs->add_subcommand("cli", "Print the CLI reference: every command, its usage and options (docs/cli.md)");
  // The whole tree: app outlives the parse that runs this callback (main() owns it).
  cli->callback([&app] { fmt::print("{}", cli_reference(app)); });
  auto* presets = docs->add_subcommand(
      "presets",
      "Print the preset reference: the common keys, every algorithm's hyperparams, every env's keyword arguments "
      "and every wrapper's arguments (docs/presets.md)");
  presets->callback([] { fmt::print("{}", preset_reference()); });
  auto* capabilities = docs->add_subcommand(
      "capabilities",
      "Print the capability table: for every algorithm the spaces, backends, learner groups, devices, recurrent "
      "policies, export and exact resume it declares (docs/capabilities.md)");
  capabilities->callback([] { fmt::print("{}", capability_reference()); });
}

}  // namespace rlzoo::cli
