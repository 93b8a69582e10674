#include "core/config/context.h"

#include <fmt/format.h>

namespace rlzoo {

ConfigContext::ConfigContext(std::string source)
    : source_(std::move(source)), overrides_(std::make_shared<std::vector<Override>>()) {}

ConfigContext ConfigContext::child(std::string_view key) const {
  ConfigContext c = *this;
  c.path_ = path_.empty() ? std::string(key) : path_ + "." + std::string(key);
  return c;
}

ConfigContext ConfigContext::item(std::size_t index) const {
  ConfigContext c = *this;
  c.path_ = path_ + "[" + std::to_string(index) + "]";
  return c;
}

void ConfigContext::add_override(std::string path, std::string flag) {
  overrides_->push_back({std::move(path), std::move(flag)});
}

const ConfigContext::Override* ConfigContext::override_for_path() const {
  // The latest override wins, as it does when applied.
  for (auto it = overrides_->rbegin(); it != overrides_->rend(); ++it) {
    const std::string& p = it->path;
    if (path_ == p || (path_.size() > p.size() && path_.compare(0, p.size(), p) == 0 &&
                       (path_[p.size()] == '.' || path_[p.size()] == '[')))
      return &*it;
  }
  return nullptr;
}

std::string ConfigContext::where(const YAML::Mark& mark) const {
  if (mark.is_null() || mark.line < 0) return source_;
  return fmt::format("{}:{}:{}", source_, mark.line + 1, mark.column + 1);
}

void ConfigContext::fail(const YAML::Mark& at, std::string_view message) const {
  std::string where_text;
  if (const Override* o = override_for_path())
    where_text = o->flag;
  else
    where_text = where(at);
  if (path_.empty()) throw ConfigError(fmt::format("{}: {}", where_text, message));
  throw ConfigError(fmt::format("{}: key '{}': {}", where_text, path_, message));
}

void ConfigContext::fail(const YAML::Node& at, std::string_view message) const {
  fail(at.IsDefined() ? at.Mark() : YAML::Mark::null_mark(), message);
}

}  // namespace rlzoo
