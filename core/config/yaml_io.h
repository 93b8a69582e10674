// Loading YAML with the checks yaml-cpp 0.7 does not make, and applying --set overrides.
#pragma once

#include <string>
#include <yaml-cpp/yaml.h>

#include "core/config/context.h"

namespace rlzoo {

// Reads and parses a YAML file. Errors (ConfigError) name the path: missing file, a
// directory, an empty file, a syntax error (with line and column), a duplicate key (with both
// lines: yaml-cpp 0.7 would silently keep the first).
YAML::Node load_yaml_file(const std::string& path);
// The same for YAML text; `source` labels it in errors.
YAML::Node load_yaml_string(const std::string& text, const std::string& source);

// Throws ConfigError for the first map (at any depth) with a repeated key.
void check_no_duplicate_keys(const YAML::Node& node, const ConfigContext& ctx);

// Applies one "a.b.c=value" assignment to root (value parsed as YAML; maps are created along
// the path) and records it in ctx so that errors about it name the flag.
void apply_override(YAML::Node& root, const std::string& assignment, ConfigContext& ctx);

}  // namespace rlzoo
