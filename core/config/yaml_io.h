// Loading YAML with the checks yaml-cpp 0.7 does not make, and applying --set overrides.
#pragma once

#include <optional>
#include <string>
#include <yaml-cpp/yaml.h>

#include "core/config/context.h"

namespace rlzoo {

// Reads and parses a YAML file. Errors (ConfigError) name the path: missing file, a
// directory, an empty file, a syntax error (with line and column), a duplicate key (with both
// lines: yaml-cpp 0.7 would silently keep the first). Anchors, aliases and merge keys work.
YAML::Node load_yaml_file(const std::string& path);
// The same for YAML text; `source` labels it in errors.
YAML::Node load_yaml_string(const std::string& text, const std::string& source);

// Throws ConfigError for the first map (at any depth) with a repeated key.
void check_no_duplicate_keys(const YAML::Node& node, const ConfigContext& ctx);

// YAML merge keys, which yaml-cpp 0.7 leaves as a plain "<<" key: a mapping with
// "<<: *defaults" (or "<<: [*a, *b]") gets a copy of every key of the merged mappings that it does
// not set itself (the first listed wins), and "<<" is removed. load_yaml_* apply it.
void expand_merge_keys(YAML::Node node, const ConfigContext& ctx);

// Where two YAML documents first differ (maps compared key by key in sorted order, sequences
// element by element, scalars by their text): `path` as "hyperparams.policy.hidden[1]" (or
// "(top level)"), `a` and `b` the two values as one-line YAML, "(absent)" where a key is missing.
struct YamlDifference {
  std::string path, a, b;
};
std::optional<YamlDifference> first_difference(const YAML::Node& a, const YAML::Node& b);

// Applies one "a.b.c=value" assignment to root (value parsed as YAML; maps are created along
// the path) and records it in ctx so that errors about it name the flag.
void apply_override(YAML::Node& root, const std::string& assignment, ConfigContext& ctx);

}  // namespace rlzoo
