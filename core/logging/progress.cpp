#include "core/logging/progress.h"

#include <algorithm>
#include <chrono>
#include <iostream>
#include <unistd.h>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

namespace rlzoo {

namespace {

double steady_seconds() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

// H:MM:SS, or "?" when unknown.
std::string duration_text(double seconds) {
  if (!(seconds >= 0) || seconds > 1e9) return "?";
  const auto s = static_cast<std::int64_t>(seconds + 0.5);
  return fmt::format("{}:{:02}:{:02}", s / 3600, (s / 60) % 60, s % 60);
}

}  // namespace

ProgressBar::ProgressBar(ProgressBarOptions options) : options_(std::move(options)) {
  out_ = options_.out ? options_.out : &std::cout;
  const bool tty = options_.is_tty.value_or(options_.out == nullptr && ::isatty(STDOUT_FILENO) == 1);
  terminal_ = tty && !options_.quiet;
  total_ = std::max<std::int64_t>(0, options_.total_steps - options_.start_step);
  returns_.assign(std::max<std::size_t>(1, options_.return_window), 0.0);
  start_time_ = last_time_ = now();
  if (terminal_) {
    draw(start_time_);  // show the empty bar at once
  } else {
    next_draw_ = start_time_ + options_.line_interval_s;
  }
}

ProgressBar::~ProgressBar() {
  try {
    finish();
  } catch (const std::exception& e) {
    spdlog::warn("progress bar: {}", e.what());
  }
}

double ProgressBar::now() const { return options_.clock ? options_.clock() : steady_seconds(); }

void ProgressBar::update(std::int64_t num_timesteps) {
  if (finished_) return;
  done_ = std::clamp<std::int64_t>(num_timesteps - options_.start_step, 0, total_);
  last_time_ = now();
  if (last_time_ >= next_draw_) draw(last_time_);
}

void ProgressBar::add_episode_return(double episode_return) {
  returns_[returns_next_] = episode_return;
  returns_next_ = (returns_next_ + 1) % returns_.size();
  returns_count_ = std::min(returns_count_ + 1, returns_.size());
}

std::string ProgressBar::status_text() const {
  const double elapsed = last_time_ - start_time_;
  const double fraction = total_ > 0 ? static_cast<double>(done_) / static_cast<double>(total_) : 1.0;
  const bool have_rate = elapsed > 0 && done_ > 0;
  const double rate = have_rate ? static_cast<double>(done_) / elapsed : 0.0;
  const std::string rate_text = have_rate ? fmt::format("{:.0f}", rate) : "?";
  const std::string eta = done_ >= total_ ? duration_text(0)
                          : have_rate     ? duration_text(static_cast<double>(total_ - done_) / rate)
                                          : "?";
  std::string ret;
  if (returns_count_ > 0) {
    double sum = 0;
    for (std::size_t i = 0; i < returns_count_; ++i) sum += returns_[i];
    ret = fmt::format(" | return {:.2f}", sum / static_cast<double>(returns_count_));
  }

  if (terminal_) {
    const int width = std::max(1, options_.bar_width);
    const int filled = std::clamp(static_cast<int>(fraction * width), 0, width);
    return fmt::format("{:5.1f}% [{}{}] {}/{} | {} steps/s | ETA {}{}", 100.0 * fraction, std::string(filled, '#'),
                       std::string(width - filled, '-'), done_, total_, rate_text, eta, ret);
  }
  return fmt::format("progress: {}/{} steps ({:.1f}%) | {} steps/s | elapsed {} | ETA {}{}", done_, total_,
                     100.0 * fraction, rate_text, duration_text(elapsed), eta, ret);
}

void ProgressBar::draw(double t) {
  const std::string text = status_text();
  if (terminal_) {
    // Blank what is left of a longer previous line.
    const std::size_t pad = last_width_ > text.size() ? last_width_ - text.size() : 0;
    *out_ << '\r' << text << std::string(pad, ' ');
    last_width_ = text.size();
    next_draw_ = t + options_.redraw_interval_s;
  } else {
    *out_ << text << '\n';
    next_draw_ = t + options_.line_interval_s;
  }
  out_->flush();
}

void ProgressBar::finish() {
  if (finished_) return;
  finished_ = true;
  last_time_ = now();
  draw(last_time_);
  if (terminal_) {
    *out_ << '\n';
    out_->flush();
  }
}

}  // namespace rlzoo
