#include "core/logging/console_sink.h"

#include <algorithm>
#include <ostream>
#include <utility>
#include <vector>

#include <fmt/format.h>

namespace rlzoo {

namespace {

constexpr std::size_t kMaxCellChars = 36;  // SB3's HumanOutputFormat max_length

std::string truncated(std::string s) {
  if (s.size() > kMaxCellChars) s = s.substr(0, kMaxCellChars - 3) + "...";
  return s;
}

std::string cell_text(const LogValue& v) {
  if (const auto* d = std::get_if<double>(&v)) return fmt::format("{:<8.3g}", *d);
  if (const auto* i = std::get_if<std::int64_t>(&v)) return fmt::format("{}", *i);
  return std::get<std::string>(v);
}

}  // namespace

std::string format_kv_table(std::span<const LogEntry> entries) {
  // Rows of (key cell, value cell); a group header row has an empty value.
  std::vector<std::pair<std::string, std::string>> rows;
  rows.reserve(entries.size() * 2);
  std::string group;
  for (const LogEntry& e : entries) {
    std::string key = e.key;
    const std::size_t slash = key.find('/');
    // A leading '/' is not a group (as in SB3: find() > 0).
    if (slash != std::string::npos && slash > 0) {
      std::string this_group = key.substr(0, slash + 1);
      if (this_group != group) {
        group = std::move(this_group);
        rows.emplace_back(truncated(group), "");
      }
      key = "   " + key.substr(slash + 1);
    }
    rows.emplace_back(truncated(std::move(key)), truncated(cell_text(e.value)));
  }
  if (rows.empty()) return {};

  std::size_t key_width = 0, value_width = 0;
  for (const auto& [k, v] : rows) {
    key_width = std::max(key_width, k.size());
    value_width = std::max(value_width, v.size());
  }
  const std::string dashes(key_width + value_width + 7, '-');
  std::string out = dashes + "\n";
  for (const auto& [k, v] : rows) out += fmt::format("| {:<{}} | {:<{}} |\n", k, key_width, v, value_width);
  out += dashes + "\n";
  return out;
}

void ConsoleSink::write(std::span<const LogEntry> entries, std::int64_t /*step*/) {
  if (!verbose_) return;
  out_ << format_kv_table(entries);
  out_.flush();
}

}  // namespace rlzoo
