// `rlzoo docs cli` and `rlzoo docs presets`: print the generated reference pages
// (docs/cli.md, docs/presets.md; scripts/gen-docs writes both).
#include <fmt/format.h>

#include "apps/commands.h"
#include "apps/docs_reference.h"

namespace rlzoo::cli {

void add_docs_command(CLI::App& app) {
  auto* docs = app.add_subcommand("docs", "Print the generated reference pages (docs/cli.md, docs/presets.md)");
  docs->require_subcommand(1);
  auto* cli = docs->add_subcommand("cli", "Print the CLI reference: every command, its usage and options (docs/cli.md)");
  // The whole tree: app outlives the parse that runs this callback (main() owns it).
  cli->callback([&app] { fmt::print("{}", cli_reference(app)); });
  auto* presets = docs->add_subcommand(
      "presets",
      "Print the preset reference: the common keys, every algorithm's hyperparams, every env's keyword arguments "
      "and every wrapper's arguments (docs/presets.md)");
  presets->callback([] { fmt::print("{}", preset_reference()); });
}

}  // namespace rlzoo::cli
