// SB3's boxed key/value table on a stream, one per dump:
//
//   ---------------------------------
//   | rollout/           |          |
//   |    ep_len_mean     | 22.4     |
//   |    ep_rew_mean     | 22.4     |
//   | time/              |          |
//   |    fps             | 1234     |
//   |    total_timesteps | 2048     |
//   ---------------------------------
//
// Keys sorted, grouped under their "group/" prefix; floats as Python's "{:<8.3g}", integers
// and strings as they are; keys and values cut to 36 characters ("..."), as SB3 does.
#pragma once

#include <iosfwd>
#include <span>
#include <string>

#include "core/logging/log_sink.h"

namespace rlzoo {

// The table for `entries` (sorted by key), ending in a newline; "" when there are none.
std::string format_kv_table(std::span<const LogEntry> entries);

class ConsoleSink : public LogSink {
 public:
  // `out` must outlive the sink. When !verbose nothing is printed (SB3's verbose=0).
  explicit ConsoleSink(std::ostream& out, bool verbose = true) : out_(out), verbose_(verbose) {}

  std::string_view name() const override { return "stdout"; }
  void write(std::span<const LogEntry> entries, std::int64_t step) override;

 private:
  std::ostream& out_;
  bool verbose_;
};

}  // namespace rlzoo
