// Where a piece of configuration came from, for error messages that name the file, line,
// column and key path:   configs/ppo/CartPole-v1.yaml:7:3: key 'ppo.learning_rate': ...
// Values set on the command line (`--set a.b=value`) are reported as coming from that flag.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>
#include <yaml-cpp/yaml.h>

#include "core/common/error.h"

namespace rlzoo {

class ConfigError : public UserError {
 public:
  using UserError::UserError;
};

class ConfigContext {
 public:
  // source: a file path, or a label such as "<defaults>" or "kwargs of CartPole-v1".
  explicit ConfigContext(std::string source = "<config>");

  // The context of a child key ("a" -> "a.b"); sequence items use "[i]".
  ConfigContext child(std::string_view key) const;
  ConfigContext item(std::size_t index) const;

  const std::string& source() const { return source_; }
  const std::string& path() const { return path_; }

  // Records that the value at key path `path` came from the command-line text `flag`
  // (e.g. "--set ppo.gamma=2"), so errors under it name the flag.
  void add_override(std::string path, std::string flag);

  // Throws ConfigError "<where>: key '<path>': <message>", where <where> is "file:line:col"
  // from the node's mark (or the parent's when the node has none), or the --set flag.
  [[noreturn]] void fail(const YAML::Node& at, std::string_view message) const;
  [[noreturn]] void fail(const YAML::Mark& at, std::string_view message) const;

  // "file:line:col" for a mark (1-based), "file" if the mark is null.
  std::string where(const YAML::Mark& mark) const;

 private:
  struct Override {
    std::string path;
    std::string flag;
  };
  const Override* override_for_path() const;

  std::string source_;
  std::string path_;
  std::shared_ptr<std::vector<Override>> overrides_;
};

}  // namespace rlzoo
