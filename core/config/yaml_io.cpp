#include "core/config/yaml_io.h"

#include <algorithm>
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

void expand_merge_keys(YAML::Node node, const ConfigContext& ctx) {
  if (node.IsSequence()) {
    for (std::size_t i = 0; i < node.size(); ++i) expand_merge_keys(node[i], ctx.item(i));
    return;
  }
  if (!node.IsMap()) return;
  const YAML::Node view = node;  // const lookups: operator[] on a non-const node would add the key
  const YAML::Node merge = view["<<"];
  for (auto it = node.begin(); it != node.end(); ++it)
    if (it->first.Scalar() != "<<") expand_merge_keys(it->second, ctx.child(it->first.Scalar()));
  if (!merge) return;
  std::vector<YAML::Node> sources;
  if (merge.IsMap()) sources.push_back(merge);
  if (merge.IsSequence())
    for (const auto& s : merge) sources.push_back(s);
  if (sources.empty() || std::any_of(sources.begin(), sources.end(), [](const YAML::Node& s) { return !s.IsMap(); }))
    ctx.child("<<").fail(merge, "a merge key needs a mapping or a list of mappings (e.g. <<: *defaults)");
  node.remove("<<");
  for (const auto& source : sources) {
    YAML::Node copy = YAML::Clone(source);  // keys set later (--set) must not change the anchor
    expand_merge_keys(copy, ctx);
    for (auto it = copy.begin(); it != copy.end(); ++it)
      if (!view[it->first.Scalar()]) node[it->first.Scalar()] = it->second;
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
  expand_merge_keys(root, ctx);
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
    throw ConfigError(fmt::format("{}: expected KEY=VALUE, e.g. --set hyperparams.learning_rate=0.001", flag));
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

namespace {

std::string one_line(const YAML::Node& n) {
  YAML::Emitter out;
  out.SetMapFormat(YAML::Flow);
  out.SetSeqFormat(YAML::Flow);
  out << n;
  return out.c_str();
}

std::string join_path(const std::string& base, const std::string& key) { return base.empty() ? key : base + "." + key; }

std::optional<YamlDifference> difference_at(const YAML::Node& a, const YAML::Node& b, const std::string& path) {
  const auto differ = [&] { return YamlDifference{path.empty() ? "(top level)" : path, one_line(a), one_line(b)}; };
  if (a.Type() != b.Type()) return differ();
  switch (a.Type()) {
    case YAML::NodeType::Map: {
      std::map<std::string, std::pair<std::optional<YAML::Node>, std::optional<YAML::Node>>> keys;
      for (const auto& kv : a) keys[kv.first.Scalar()].first = kv.second;
      for (const auto& kv : b) keys[kv.first.Scalar()].second = kv.second;
      for (const auto& [key, values] : keys) {
        const std::string at = join_path(path, key);
        if (!values.first || !values.second)
          return YamlDifference{at, values.first ? one_line(*values.first) : "(absent)",
                                values.second ? one_line(*values.second) : "(absent)"};
        if (auto d = difference_at(*values.first, *values.second, at)) return d;
      }
      return std::nullopt;
    }
    case YAML::NodeType::Sequence: {
      if (a.size() != b.size()) return differ();
      for (std::size_t i = 0; i < a.size(); ++i)
        if (auto d = difference_at(a[i], b[i], fmt::format("{}[{}]", path, i))) return d;
      return std::nullopt;
    }
    case YAML::NodeType::Scalar:
      if (a.Scalar() == b.Scalar()) return std::nullopt;
      return differ();
    default:
      return std::nullopt;  // both null or both undefined
  }
}

}  // namespace

std::optional<YamlDifference> first_difference(const YAML::Node& a, const YAML::Node& b) {
  return difference_at(a, b, "");
}

}  // namespace rlzoo
