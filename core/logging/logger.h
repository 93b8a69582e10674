// SB3-style metric logger: record key/values during an iteration, then dump(step) sends them to
// every sink and clears them.
//
//   Logger logger;
//   logger.add_sink(std::make_unique<ConsoleSink>());
//   logger.add_sink(std::make_unique<TensorBoardSink>(run_dir));
//   logger.record("rollout/ep_rew_mean", 21.5);
//   logger.record_excluded("time/iterations", 3, {"tensorboard"});  // stdout/csv only, as SB3
//   logger.dump(num_timesteps);
//
// Keys excluded from a sink never reach it. SB3 keeps time/iterations, time/time_elapsed,
// time/total_timesteps, time/episodes and train/n_updates out of TensorBoard this way.
// Logging happens once per dump, not per env step, so building strings here is fine.
// Not thread-safe.
#pragma once

#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "core/logging/log_sink.h"

namespace rlzoo {

// Integers (and bool) as int64, floating point as double.
template <class T>
  requires std::is_arithmetic_v<T>
LogValue to_log_value(T v) {
  if constexpr (std::is_floating_point_v<T>)
    return static_cast<double>(v);
  else
    return static_cast<std::int64_t>(v);
}

class Logger {
 public:
  Logger() = default;
  ~Logger();  // close()
  Logger(const Logger&) = delete;
  Logger& operator=(const Logger&) = delete;

  // Adds a sink; the logger owns it. Returns it for the caller's convenience.
  LogSink& add_sink(std::unique_ptr<LogSink> sink);
  std::size_t num_sinks() const { return sinks_.size(); }

  // Sets `key` for the next dump (a later record of the same key replaces it).
  void record(std::string_view key, LogValue value) { record_excluded(key, std::move(value), {}); }
  template <class T>
    requires std::is_arithmetic_v<T>
  void record(std::string_view key, T value) { record(key, to_log_value(value)); }

  // As record(), but the key is not sent to the sinks named in `excluded_sinks` ("stdout"
  // (alias "log"), "csv", "tensorboard", "json", or a custom sink's name). Throws UserError for
  // any other name, so a typo cannot silently leak a key into TensorBoard.
  void record_excluded(std::string_view key, LogValue value, std::initializer_list<std::string_view> excluded_sinks);
  template <class T>
    requires std::is_arithmetic_v<T>
  void record_excluded(std::string_view key, T value, std::initializer_list<std::string_view> excluded_sinks) {
    record_excluded(key, to_log_value(value), excluded_sinks);
  }

  // Averages every value recorded for `key` until the next dump (SB3's record_mean), e.g. a
  // loss over minibatches.
  void record_mean(std::string_view key, double value, std::initializer_list<std::string_view> excluded_sinks = {});

  // Sends the recorded values (sorted by key) to every sink, then clears them. A sink that
  // would receive nothing is skipped. When a sink throws, the others still get the dump and
  // the first error is rethrown afterwards.
  void dump(std::int64_t step);

  // The value recorded for `key` since the last dump (means are resolved), if any.
  std::optional<LogValue> value(std::string_view key) const;

  // Closes every sink; later dumps go nowhere. Idempotent.
  void close();

 private:
  struct Pending {
    LogValue value;
    double mean_sum = 0;
    std::int64_t mean_count = 0;  // > 0: value is the mean of mean_count records
    std::vector<std::string> excluded;
  };
  std::vector<std::string> checked_exclusions(std::initializer_list<std::string_view> names) const;

  std::vector<std::unique_ptr<LogSink>> sinks_;
  std::map<std::string, Pending, std::less<>> pending_;  // sorted: sinks get keys in order
  bool closed_ = false;
};

// The sink SB3 names `format` ("stdout", "csv", "tensorboard"), writing under `dir`
// (csv: <dir>/progress.csv; tensorboard: an event file in <dir>). Throws UserError listing the
// valid names for any other.
std::unique_ptr<LogSink> make_log_sink(std::string_view format, const std::filesystem::path& dir);

}  // namespace rlzoo
