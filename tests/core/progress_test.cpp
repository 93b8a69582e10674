// ProgressBar with an injected clock, terminal flag and stream: plain periodic lines when not a
// terminal, a throttled '\r'-redrawn bar on one, and resumed runs counting only remaining work.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "core/logging/progress.h"

using ::testing::HasSubstr;

namespace {

struct Harness {
  double t = 100.0;  // arbitrary monotonic origin
  std::ostringstream out;

  rlzoo::ProgressBarOptions options(std::int64_t total, bool tty) {
    rlzoo::ProgressBarOptions o;
    o.total_steps = total;
    o.is_tty = tty;
    o.out = &out;
    o.clock = [this] { return t; };
    o.line_interval_s = 5.0;
    return o;
  }
};

std::size_t count(const std::string& s, char c) { return static_cast<std::size_t>(std::count(s.begin(), s.end(), c)); }

}  // namespace

TEST(ProgressBar, PlainLinesAtTheConfiguredInterval) {
  Harness h;
  rlzoo::ProgressBar bar(h.options(10000, /*tty=*/false));
  EXPECT_FALSE(bar.terminal_mode());
  EXPECT_EQ(h.out.str(), "") << "no line before the first interval";

  h.t += 1.0;
  bar.update(1000);
  EXPECT_EQ(h.out.str(), "");

  h.t += 4.0;  // 5 s in
  bar.update(5000);
  bar.add_episode_return(10.0);
  bar.add_episode_return(20.0);
  h.t += 1.0;
  bar.update(5500);  // only 1 s after the last line
  h.t += 4.0;        // 10 s in
  bar.update(8000);
  bar.finish();
  bar.finish();  // idempotent
  EXPECT_EQ(h.out.str(),
            "progress: 5000/10000 steps (50.0%) | 1000 steps/s | elapsed 0:00:05 | ETA 0:00:05\n"
            "progress: 8000/10000 steps (80.0%) | 800 steps/s | elapsed 0:00:10 | ETA 0:00:03 | return 15.00\n"
            "progress: 8000/10000 steps (80.0%) | 800 steps/s | elapsed 0:00:10 | ETA 0:00:03 | return 15.00\n");
  EXPECT_EQ(count(h.out.str(), '\r'), 0u);
}

TEST(ProgressBar, ResumedRunShowsOnlyRemainingWork) {
  Harness h;
  auto o = h.options(100000, false);
  o.start_step = 60000;
  rlzoo::ProgressBar bar(o);
  h.t += 10.0;
  bar.update(70000);
  EXPECT_EQ(h.out.str(),
            "progress: 10000/40000 steps (25.0%) | 1000 steps/s | elapsed 0:00:10 | ETA 0:00:30\n");
}

TEST(ProgressBar, UnknownRateBeforeAnyProgress) {
  Harness h;
  rlzoo::ProgressBar bar(h.options(500, false));
  h.t += 5.0;
  bar.update(0);
  EXPECT_EQ(h.out.str(), "progress: 0/500 steps (0.0%) | ? steps/s | elapsed 0:00:05 | ETA ?\n");
}

TEST(ProgressBar, OvershootIsClampedToTheTotal) {
  Harness h;
  rlzoo::ProgressBar bar(h.options(1000, false));
  h.t += 2.0;
  bar.update(1004);  // the last vector step overshoots by up to num_envs - 1
  bar.finish();
  EXPECT_THAT(h.out.str(), HasSubstr("1000/1000 steps (100.0%)"));
  EXPECT_THAT(h.out.str(), HasSubstr("ETA 0:00:00"));
}

TEST(ProgressBar, ReturnMeanUsesTheRecentWindow) {
  Harness h;
  auto o = h.options(100, false);
  o.return_window = 2;
  rlzoo::ProgressBar bar(o);
  bar.add_episode_return(100.0);
  bar.add_episode_return(1.0);
  bar.add_episode_return(3.0);
  EXPECT_THAT(bar.status_text(), HasSubstr("| return 2.00"));
}

TEST(ProgressBar, TerminalBarRedrawsInPlaceAtMostTenTimesASecond) {
  Harness h;
  rlzoo::ProgressBar bar(h.options(1000, /*tty=*/true));
  EXPECT_TRUE(bar.terminal_mode());
  EXPECT_EQ(h.out.str(), "\r  0.0% [------------------------] 0/1000 | ? steps/s | ETA ?");

  for (int i = 1; i <= 50; ++i) {  // 50 updates within 0.05 s: no redraw
    h.t += 0.001;
    bar.update(i);
  }
  EXPECT_EQ(count(h.out.str(), '\r'), 1u);

  h.t += 0.05;  // 0.1 s after the first draw
  bar.update(500);
  EXPECT_EQ(count(h.out.str(), '\r'), 2u);
  EXPECT_THAT(h.out.str(), HasSubstr("\r 50.0% [############------------] 500/1000 | 5000 steps/s | ETA 0:00:00"));

  h.t += 0.2;
  bar.update(1000);
  bar.finish();
  const std::string s = h.out.str();
  EXPECT_EQ(count(s, '\n'), 1u) << "one line, ended by finish()";
  EXPECT_EQ(s.back(), '\n');
  EXPECT_THAT(s, HasSubstr("100.0% [########################] 1000/1000"));
}

TEST(ProgressBar, TerminalRedrawBlanksALongerPreviousLine) {
  Harness h;
  auto o = h.options(1000, true);
  o.return_window = 1;
  rlzoo::ProgressBar bar(o);
  bar.add_episode_return(-1000000.0);
  h.t += 0.1;
  bar.update(10);
  const std::string long_line = bar.status_text();
  bar.add_episode_return(0.0);  // "return 0.00": 7 characters shorter
  h.t += 0.1;
  bar.update(20);
  const std::string short_line = bar.status_text();
  ASSERT_LT(short_line.size(), long_line.size());
  const std::string s = h.out.str();
  const std::string last = s.substr(s.rfind('\r') + 1);
  EXPECT_EQ(last, short_line + std::string(long_line.size() - short_line.size(), ' '));
}

TEST(ProgressBar, QuietUsesPlainLinesEvenOnATerminal) {
  Harness h;
  auto o = h.options(100, true);
  o.quiet = true;
  rlzoo::ProgressBar bar(o);
  EXPECT_FALSE(bar.terminal_mode());
  h.t += 5.0;
  bar.update(50);
  EXPECT_EQ(h.out.str(), "progress: 50/100 steps (50.0%) | 10 steps/s | elapsed 0:00:05 | ETA 0:00:05\n");
}
