// What a Logger hands its sinks at every dump: key/value entries sorted by key, and the
// interface every output (console table, CSV, TensorBoard, a user's own) implements.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <variant>

namespace rlzoo {

// A logged value. Integers stay integers so counters print as "2048", not "2.05e+03".
using LogValue = std::variant<std::int64_t, double, std::string>;

// A number as a double in `out` (returns true); false for a string, which plots cannot show.
inline bool log_value_as_double(const LogValue& v, double& out) {
  if (const auto* i = std::get_if<std::int64_t>(&v)) {
    out = static_cast<double>(*i);
    return true;
  }
  if (const auto* d = std::get_if<double>(&v)) {
    out = *d;
    return true;
  }
  return false;
}

struct LogEntry {
  std::string key;  // SB3 style "group/name", e.g. "rollout/ep_rew_mean"
  LogValue value;
};

class LogSink {
 public:
  virtual ~LogSink() = default;

  // The name keys are excluded by, as in SB3: "stdout", "csv", "tensorboard". A custom sink
  // picks its own.
  virtual std::string_view name() const = 0;

  // One dump at `step` (env steps so far). `entries` are sorted by key and hold only keys not
  // excluded from this sink; never empty. Throws on an I/O error.
  virtual void write(std::span<const LogEntry> entries, std::int64_t step) = 0;

  // Flush and release files. Called once by Logger::close(); writes after it are not made.
  virtual void close() {}
};

}  // namespace rlzoo
