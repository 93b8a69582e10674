// Console progress for training: env steps done/total, steps per second, ETA and the mean
// return of recent episodes.
//
//  * On a terminal: one line redrawn in place with '\r', at most once per redraw_interval_s
//    (~10 times a second), ended with a newline by finish().
//  * Otherwise (a pipe, a log file, or quiet): a plain line every line_interval_s and one at
//    finish(), so logs stay readable and small.
//
// A resumed run shows only the remaining work: with start_step = 60'000 and total_steps =
// 100'000 the bar runs from 0 to 40'000, as SB3's ProgressBarCallback does. update() is meant
// to be called every env step: it reads the clock and allocates nothing unless it draws.
// Clock, terminal flag and stream are injectable so tests are deterministic.
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace rlzoo {

struct ProgressBarOptions {
  // The run's target in env steps, counted over all envs (SB3's total_timesteps).
  std::int64_t total_steps = 0;
  // Env steps already done before this run (a resumed run); they are not shown as progress.
  std::int64_t start_step = 0;
  // Plain periodic lines even on a terminal.
  bool quiet = false;
  // Whether `out` is a terminal. Default: isatty(stdout) when `out` is std::cout, else false.
  std::optional<bool> is_tty;
  // Where to print; must outlive the bar. Default: std::cout.
  std::ostream* out = nullptr;
  // Monotonic seconds. Default: std::chrono::steady_clock.
  std::function<double()> clock;
  // Terminal mode: minimum seconds between redraws.
  double redraw_interval_s = 0.1;
  // Plain mode: seconds between lines.
  double line_interval_s = 10.0;
  // Episodes in the mean return (SB3's stats_window_size).
  std::size_t return_window = 100;
  // Characters in the terminal bar.
  int bar_width = 24;
};

class ProgressBar {
 public:
  explicit ProgressBar(ProgressBarOptions options);
  ~ProgressBar();  // finish(); never throws
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  // Env steps done in total (the same count as total_steps/start_step, e.g. num_timesteps).
  // Ignored after finish().
  void update(std::int64_t num_timesteps);

  // A finished episode's return, for the mean shown. No allocation (a fixed ring).
  void add_episode_return(double episode_return);

  // Draws the final state (terminal: plus a newline; plain: a last line). Idempotent.
  void finish();

  bool terminal_mode() const { return terminal_; }

  // The current state as one line, without '\r' or newline: the terminal bar or the plain line.
  std::string status_text() const;

 private:
  double now() const;
  void draw(double t);

  ProgressBarOptions options_;
  std::ostream* out_;
  bool terminal_ = false;
  bool finished_ = false;
  std::int64_t total_ = 0;  // steps this run has to do (never negative)
  std::int64_t done_ = 0;   // steps done in this run, clamped to [0, total_]
  double start_time_ = 0;
  double last_time_ = 0;    // clock at the latest update
  double next_draw_ = 0;    // no drawing before this time
  std::size_t last_width_ = 0;  // terminal: characters drawn last, to blank leftovers
  std::vector<double> returns_;  // ring of the last return_window episode returns
  std::size_t returns_next_ = 0;
  std::size_t returns_count_ = 0;
};

}  // namespace rlzoo
