// What CLI11 could not parse, as the one `rlzoo: error:` line every other mistake gets
// (docs/cli.md): the command it was given to, an unknown command or option named with the
// nearest real one ("did you mean ..."), the commands a group offers when none was given.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace rlzoo::cli {

// The message (without "rlzoo: error: ") for `error`, thrown by app.parse(); app is the tree it
// was thrown from, in the state the failed parse left it (the commands it got as far as).
std::string parse_error_message(const CLI::App& app, const CLI::ParseError& error);

}  // namespace rlzoo::cli
