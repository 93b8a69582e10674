// The generated reference pages: docs/cli.md from the command tree, docs/presets.md from the
// config structs' describe() (core/config/schema.h) and the registries, docs/capabilities.md
// from the algorithm registry. Their output is
// deterministic (registration order or sorted; no paths, times or machine values), so that
// tests/cli/docs_test.cpp can compare it with the committed files.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace rlzoo::cli {

// Markdown of every subcommand of app (recursively): description, usage, options. Captures
// each option's default from its bound variable, so call it on a tree that has parsed nothing
// but the command that prints it.
std::string cli_reference(CLI::App& app);

// Markdown of the preset keys: the common ones (PresetConfig), each registered algorithm's
// hyperparams, each registered env's keyword arguments and each wrapper's arguments. Needs the
// registries filled (main() does).
std::string preset_reference();

// Markdown of every registered algorithm's declared capabilities, one table row each
// (docs/capabilities.md).
std::string capability_reference();

}  // namespace rlzoo::cli
