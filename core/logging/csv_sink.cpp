#include "core/logging/csv_sink.h"

#include <algorithm>
#include <fstream>
#include <system_error>

#include <fmt/format.h>

#include "core/common/error.h"

namespace rlzoo {

namespace {

// A string cell, always quoted like SB3. Line breaks become spaces: the header rewrite works
// line by line, so a row must never span lines.
std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"')
      out += "\"\"";
    else if (c == '\n' || c == '\r')
      out += ' ';
    else
      out += c;
  }
  return out + "\"";
}

// Keys are quoted only when they would break the row.
std::string header_cell(const std::string& key) {
  return key.find_first_of(",\"\n\r") == std::string::npos ? key : quoted(key);
}

std::string cell(const LogValue& v) {
  if (const auto* i = std::get_if<std::int64_t>(&v)) return fmt::format("{}", *i);
  if (const auto* d = std::get_if<double>(&v)) return fmt::format("{}", *d);  // shortest round-trip
  return quoted(std::get<std::string>(v));
}

std::string header_line(const std::vector<std::string>& columns) {
  std::string line;
  for (std::size_t i = 0; i < columns.size(); ++i) {
    if (i > 0) line += ',';
    line += header_cell(columns[i]);
  }
  return line + "\n";
}

}  // namespace

CsvSink::CsvSink(std::filesystem::path path) : path_(std::move(path)) {
  if (path_.has_parent_path()) {
    std::error_code ec;
    std::filesystem::create_directories(path_.parent_path(), ec);
    if (ec) throw UserError(fmt::format("cannot create directory for '{}': {}", path_.string(), ec.message()));
  }
  std::ofstream out(path_, std::ios::trunc);
  if (!out) throw UserError(fmt::format("cannot create CSV log '{}'", path_.string()));
}

void CsvSink::rewrite_with_columns(std::size_t old_count) {
  std::ifstream in(path_);
  if (!in) throw UserError(fmt::format("cannot read CSV log '{}' to extend its header", path_.string()));
  const std::string padding(columns_.size() - old_count, ',');
  std::string text = header_line(columns_);
  std::string line;
  bool first = true;
  while (std::getline(in, line)) {
    if (first) {  // the old header
      first = false;
      continue;
    }
    text += line;
    text += padding;
    text += '\n';
  }
  in.close();
  // Write a sibling and rename over: a crash mid-rewrite leaves the old file whole.
  const std::filesystem::path tmp = path_.string() + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc | std::ios::binary);
    out << text;
    out.flush();
    if (!out) throw UserError(fmt::format("cannot write '{}'", tmp.string()));
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path_, ec);
  if (ec) throw UserError(fmt::format("cannot replace CSV log '{}': {}", path_.string(), ec.message()));
}

void CsvSink::write(std::span<const LogEntry> entries, std::int64_t /*step*/) {
  const std::size_t old_count = columns_.size();
  // `entries` are sorted by key, so new columns are appended in sorted order.
  for (const LogEntry& e : entries)
    if (std::find(columns_.begin(), columns_.end(), e.key) == columns_.end()) columns_.push_back(e.key);
  if (old_count == 0) {
    std::ofstream out(path_, std::ios::app | std::ios::binary);
    out << header_line(columns_);
    if (!out) throw UserError(fmt::format("cannot write CSV log '{}'", path_.string()));
  } else if (columns_.size() > old_count) {
    rewrite_with_columns(old_count);
  }

  std::string row;
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    if (c > 0) row += ',';
    auto it = std::find_if(entries.begin(), entries.end(), [&](const LogEntry& e) { return e.key == columns_[c]; });
    if (it != entries.end()) row += cell(it->value);
  }
  row += '\n';
  std::ofstream out(path_, std::ios::app | std::ios::binary);
  out << row;
  out.flush();
  if (!out) throw UserError(fmt::format("cannot write CSV log '{}'", path_.string()));
}

}  // namespace rlzoo
