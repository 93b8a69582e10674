#include "core/logging/logger.h"

#include <algorithm>
#include <array>
#include <iostream>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "core/common/error.h"
#include "core/common/strings.h"
#include "core/logging/console_sink.h"
#include "core/logging/csv_sink.h"
#include "core/logging/tensorboard_sink.h"

namespace rlzoo {

namespace {

// SB3's output format names; "log" is SB3's alias of "stdout".
constexpr std::array<std::string_view, 5> kKnownSinkNames = {"stdout", "log", "csv", "tensorboard", "json"};

}  // namespace

Logger::~Logger() {
  try {
    close();
  } catch (const std::exception& e) {
    spdlog::error("closing the logger: {}", e.what());
  }
}

LogSink& Logger::add_sink(std::unique_ptr<LogSink> sink) {
  RLZOO_CHECK(sink != nullptr);
  sinks_.push_back(std::move(sink));
  return *sinks_.back();
}

std::vector<std::string> Logger::checked_exclusions(std::initializer_list<std::string_view> names) const {
  std::vector<std::string> out;
  out.reserve(names.size());
  for (std::string_view name : names) {
    bool known = std::find(kKnownSinkNames.begin(), kKnownSinkNames.end(), name) != kKnownSinkNames.end();
    for (const auto& sink : sinks_) known = known || sink->name() == name;
    if (!known) {
      std::vector<std::string> valid(kKnownSinkNames.begin(), kKnownSinkNames.end());
      for (const auto& sink : sinks_)
        if (std::find(valid.begin(), valid.end(), sink->name()) == valid.end()) valid.emplace_back(sink->name());
      throw UserError(fmt::format("unknown log sink '{}' in an exclusion list{}; valid names: {}", name,
                                  did_you_mean(name, valid), join(valid)));
    }
    out.emplace_back(name == "log" ? "stdout" : name);
  }
  return out;
}

void Logger::record_excluded(std::string_view key, LogValue value, std::initializer_list<std::string_view> excluded_sinks) {
  std::vector<std::string> excluded = checked_exclusions(excluded_sinks);
  auto it = pending_.find(key);
  if (it == pending_.end()) it = pending_.emplace(std::string(key), Pending{}).first;
  it->second.value = std::move(value);
  it->second.mean_sum = 0;
  it->second.mean_count = 0;
  it->second.excluded = std::move(excluded);
}

void Logger::record_mean(std::string_view key, double value, std::initializer_list<std::string_view> excluded_sinks) {
  std::vector<std::string> excluded = checked_exclusions(excluded_sinks);
  auto it = pending_.find(key);
  if (it == pending_.end()) it = pending_.emplace(std::string(key), Pending{}).first;
  Pending& p = it->second;
  if (p.mean_count == 0) p.mean_sum = 0;  // a plain record() before: start the mean afresh
  p.mean_sum += value;
  p.mean_count += 1;
  p.value = p.mean_sum / static_cast<double>(p.mean_count);
  p.excluded = std::move(excluded);
}

std::optional<LogValue> Logger::value(std::string_view key) const {
  auto it = pending_.find(key);
  if (it == pending_.end()) return std::nullopt;
  return it->second.value;
}

void Logger::dump(std::int64_t step) {
  // Take the values first so they are cleared even when a sink throws.
  std::map<std::string, Pending, std::less<>> values;
  values.swap(pending_);
  if (closed_) return;

  std::vector<LogEntry> entries;
  entries.reserve(values.size());
  // A failing sink (say, a full disk under the CSV) must not starve the others of this dump.
  std::exception_ptr first_error;
  for (const auto& sink : sinks_) {
    entries.clear();
    for (const auto& [key, p] : values) {
      if (std::find(p.excluded.begin(), p.excluded.end(), sink->name()) != p.excluded.end()) continue;
      entries.push_back({key, p.value});
    }
    if (entries.empty()) continue;
    try {
      sink->write(entries, step);
    } catch (...) {
      if (!first_error) first_error = std::current_exception();
    }
  }
  if (first_error) std::rethrow_exception(first_error);
}

void Logger::close() {
  if (closed_) return;
  closed_ = true;
  pending_.clear();
  // Close every sink even if one fails; report the first failure.
  std::exception_ptr first_error;
  for (const auto& sink : sinks_) {
    try {
      sink->close();
    } catch (...) {
      if (!first_error) first_error = std::current_exception();
    }
  }
  if (first_error) std::rethrow_exception(first_error);
}

std::unique_ptr<LogSink> make_log_sink(std::string_view format, const std::filesystem::path& dir) {
  if (format == "stdout" || format == "log") return std::make_unique<ConsoleSink>(std::cout);
  if (format == "csv") return std::make_unique<CsvSink>(dir / "progress.csv");
  if (format == "tensorboard") return std::make_unique<TensorBoardSink>(dir);
  const std::vector<std::string> valid = {"stdout", "csv", "tensorboard"};
  throw UserError(fmt::format("unknown log format '{}'{}; valid formats: {}", format, did_you_mean(format, valid),
                              join(valid)));
}

}  // namespace rlzoo
