// The documentation of a config struct's keys, as document_config<T>() (core/config/schema.h)
// lists them. Kept apart from schema.h so that registries (envs, wrappers, algorithms) can carry
// the docs of their keyword arguments without the parsing machinery.
#pragma once

#include <string>
#include <vector>

namespace rlzoo {

// One documented key (a row of docs/presets.md).
struct FieldDoc {
  std::string key;            // path from the struct's root: "eval.every"; items of a list of structs: "terms[].weight"
  std::string type;           // "integer", "number", "string", "list of integer", "mapping", "any", ...
  std::string default_value;  // the default as YAML flow text ("" for required keys and nested structs)
  std::string constraint;     // "" or e.g. ">= 0", "in [0, 1]", "one of: tanh, relu" (joined by "; ")
  std::string doc;
  bool required = false;
};
using ConfigDoc = std::vector<FieldDoc>;

// "key (type, default D, constraint): doc" lines (`rlzoo list --hyperparams`).
std::vector<std::string> describe_lines(const ConfigDoc& doc, const std::string& prefix = "");

}  // namespace rlzoo
