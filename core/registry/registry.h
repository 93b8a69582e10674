// A name -> entry table used for envs (and later algorithms, networks, presets).
// Filled by explicit register_*() calls, never by static initialisers, so registration
// survives static linking. Looking up an unknown name lists close matches.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/common/error.h"
#include "core/common/strings.h"

namespace rlzoo {

template <class Entry>
class Registry {
 public:
  explicit Registry(std::string what) : what_(std::move(what)) {}

  // Registering the same name twice is an error (two components claiming one id).
  void add(const std::string& name, Entry entry) {
    if (entries_.count(name)) throw UserError(what_ + " '" + name + "' is registered twice");
    entries_.emplace(name, std::move(entry));
  }
  bool contains(const std::string& name) const { return entries_.count(name) != 0; }
  const Entry& get(const std::string& name) const {
    auto it = entries_.find(name);
    if (it == entries_.end()) {
      const auto all = names();
      const auto close = close_matches(name, all);
      std::string msg = "unknown " + what_ + " '" + name + "'";
      msg += close.empty() ? "; known: " + join(all) : "; did you mean: " + join(close) + "?";
      throw UserError(msg);
    }
    return it->second;
  }
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& [k, v] : entries_) out.push_back(k);
    return out;
  }

 private:
  std::string what_;
  std::map<std::string, Entry> entries_;
};

}  // namespace rlzoo
