#include "core/config/config_doc.h"

#include <fmt/format.h>

namespace rlzoo {

std::vector<std::string> describe_lines(const ConfigDoc& doc, const std::string& prefix) {
  std::vector<std::string> out;
  for (const auto& f : doc) {
    std::string about = f.type;
    if (f.required) about += ", required";
    else if (!f.default_value.empty()) about += ", default " + f.default_value;
    if (!f.constraint.empty()) about += ", " + f.constraint;
    out.push_back(fmt::format("{}{} ({}): {}", prefix, f.key, about, f.doc));
  }
  return out;
}

}  // namespace rlzoo
