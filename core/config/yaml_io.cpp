#include "core/config/yaml_io.h"

#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <map>
#include <sstream>

namespace rlzoo {

void check_no_duplicate_keys(const YAML::Node& node, const ConfigContext& ctx) {
  if (node.IsMap()) {
    std::map<std::string, YAML::Mark> seen;
    for (auto it = node.begin(); it != node.end(); ++it) {
      const std::string key = it->first.IsScalar() ? it->first.Scalar() : YAML::Dump(it->first);
      const ConfigContext c = ctx.child(key);
      auto [pos, inserted] = seen.emplace(key, it->first.Mark());
      if (!inserted)
        c.fail(it->first.Mark(), fmt::format("duplicate key (first defined at line {})", pos->second.line + 1));
      check_no_duplicate_keys(it->second, c);
    }
  } else if (node.IsSequence()) {
    for (std::size_t i = 0; i < node.size(); ++i) check_no_duplicate_keys(node[i], ctx.item(i));
  }
}

YAML::Node load_yaml_string(const std::string& text, const std::string& source) {
  ConfigContext ctx(source);
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    throw ConfigError(fmt::format("{}: YAML syntax error: {}", ctx.where(e.mark), e.msg));
  }
  check_no_duplicate_keys(root, ctx);
  return root;
}

YAML::Node load_yaml_file(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::exists(path, ec)) throw ConfigError(fmt::format("{}: no such file", path));
  if (fs::is_directory(path, ec)) throw ConfigError(fmt::format("{}: is a directory, expected a YAML file", path));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError(fmt::format("{}: cannot be read", path));
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) throw ConfigError(fmt::format("{}: file is empty", path));
  return load_yaml_string(text, path);
}

void apply_override(YAML::Node& root, const std::string& assignment, ConfigContext& ctx) {
  const std::string flag = "--set " + assignment;
  const auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0)
    throw ConfigError(fmt::format("{}: expected KEY=VALUE, e.g. --set ppo.learning_rate=0.001", flag));
  const std::string path = assignment.substr(0, eq);
  const std::string value_text = assignment.substr(eq + 1);
  YAML::Node value;
  try {
    value = value_text.empty() ? YAML::Node(YAML::NodeType::Null) : YAML::Load(value_text);
  } catch (const YAML::ParserException& e) {
    throw ConfigError(fmt::format("{}: cannot parse the value as YAML: {}", flag, e.msg));
  }
  std::vector<std::string> keys;
  std::size_t start = 0;
  while (true) {
    const auto dot = path.find('.', start);
    keys.push_back(path.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (keys.back().empty()) throw ConfigError(fmt::format("{}: empty key in '{}'", flag, path));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  if (!root.IsDefined() || root.IsNull()) root = YAML::Node(YAML::NodeType::Map);
  if (!root.IsMap()) throw ConfigError(fmt::format("{}: the configuration is not a mapping", flag));
  YAML::Node cur = root;
  for (std::size_t i = 0; i + 1 < keys.size(); ++i) {
    YAML::Node next = cur[keys[i]];
    if (!next.IsDefined() || next.IsNull()) {
      cur[keys[i]] = YAML::Node(YAML::NodeType::Map);
      next = cur[keys[i]];
    }
    if (!next.IsMap())
      throw ConfigError(fmt::format("{}: '{}' is not a mapping, cannot set a key inside it", flag,
                                    fmt::join(keys.begin(), keys.begin() + static_cast<long>(i) + 1, ".")));
    cur.reset(next);  // rebind (plain assignment would overwrite cur's content)
  }
  cur[keys.back()] = value;
  ctx.add_override(path, flag);
}

}  // namespace rlzoo
