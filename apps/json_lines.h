// JSON-lines input for the command-line tools (`env replay`, `doudizhu legal-moves`,
// `doudizhu q-values`): one JSON object per non-empty line; errors name the line.
#pragma once

#include <istream>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/common/error.h"

namespace rlzoo::cli {

// Calls f(json) for each non-empty line of `in`. Bad JSON, and any UserError that f throws,
// become a UserError prefixed with "stdin line N: ".
template <class F>
void for_each_json_line(std::istream& in, F&& f) {
  std::string line;
  for (std::size_t number = 1; std::getline(in, line); ++number) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(line);
    } catch (const nlohmann::json::parse_error& e) {
      throw UserError(fmt::format("stdin line {}: invalid JSON: {}", number, e.what()));
    }
    try {
      f(j);
    } catch (const UserError& e) {
      throw UserError(fmt::format("stdin line {}: {}", number, e.what()));
    }
  }
}

}  // namespace rlzoo::cli
