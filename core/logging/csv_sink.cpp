#include "core/logging/csv_sink.h"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <iterator>
#include <sstream>
#include <system_error>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

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

// The cells of one CSV line as written here: a quoted cell may hold commas and doubled quotes.
std::vector<std::string> split_cells(const std::string& line) {
  std::vector<std::string> cells(1);
  bool in_quotes = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (in_quotes) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        cells.back() += '"';
        ++i;
      } else if (c == '"') {
        in_quotes = false;
      } else {
        cells.back() += c;
      }
    } else if (c == '"') {
      in_quotes = true;
    } else if (c == ',') {
      cells.emplace_back();
    } else {
      cells.back() += c;
    }
  }
  return cells;
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

CsvSink CsvSink::continued(std::filesystem::path path, std::int64_t step) {
  if (!std::filesystem::exists(path)) return CsvSink(std::move(path));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UserError(fmt::format("cannot read CSV log '{}' to continue it", path.string()));
  std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // Rows are written whole and end with a line break: text after the last one was cut short
  // by a crash mid-write.
  content.erase(content.find_last_of('\n') == std::string::npos ? 0 : content.find_last_of('\n') + 1);
  if (content.empty()) return CsvSink(std::move(path));  // not even a whole header
  return CsvSink(std::move(path), content, step);
}

CsvSink::CsvSink(std::filesystem::path path, const std::string& content, std::int64_t step) : path_(std::move(path)) {
  std::istringstream lines(content);
  std::string header, line;
  std::getline(lines, header);
  columns_ = split_cells(header);
  const auto step_column = std::find(columns_.begin(), columns_.end(), "time/total_timesteps") - columns_.begin();
  if (step_column == static_cast<std::ptrdiff_t>(columns_.size()))
    spdlog::warn("{}: no time/total_timesteps column; continuing after its rows, none dropped", path_.string());
  std::string text = header + "\n";
  std::size_t dropped = 0;  // rows of work the checkpoint did not keep
  while (std::getline(lines, line)) {
    const auto cells = split_cells(line);
    if (static_cast<std::size_t>(step_column) < cells.size() && !cells[step_column].empty()) {
      const std::string& cell = cells[step_column];
      double row_step = 0;  // written as an integer; a number in another notation is accepted
      const auto [end, error] = std::from_chars(cell.data(), cell.data() + cell.size(), row_step);
      if (error != std::errc() || end != cell.data() + cell.size())
        throw UserError(fmt::format("CSV log '{}': time/total_timesteps '{}' is not a step number; move the file "
                                    "away to start a new log",
                                    path_.string(), cell));
      if (row_step > static_cast<double>(step)) {
        ++dropped;
        continue;
      }
    }
    text += line;
    text += '\n';
  }
  replace_contents(text);
  if (dropped > 0)
    spdlog::info("{}: continuing from step {}; {} row(s) logged after it were dropped", path_.string(), step, dropped);
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
  replace_contents(text);
}

void CsvSink::replace_contents(const std::string& text) {
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
