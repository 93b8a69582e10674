// LineProcess: lines both ways, deadlines that bite, exits and broken pipes reported (never a
// SIGPIPE), over-long lines refused.
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>

#include "core/common/error.h"
#include "core/platform/line_process.h"

namespace rlzoo {
namespace {

using namespace std::chrono_literals;
using Status = LineProcess::Status;

LineProcess::Clock::time_point in(std::chrono::milliseconds d) { return LineProcess::Clock::now() + d; }

TEST(LineProcess, EchoesLinesInOrderAndCountsThem) {
  LineProcess p("cat");
  EXPECT_EQ(p.write_line("{\"a\": 1}", in(10s)), Status::Ok);
  EXPECT_EQ(p.write_line("second\r", in(10s)), Status::Ok);  // a trailing CR is dropped on reading
  auto r = p.read_line(in(10s));
  EXPECT_EQ(r.status, Status::Ok);
  EXPECT_EQ(r.line, "{\"a\": 1}");
  r = p.read_line(in(10s));
  EXPECT_EQ(r.line, "second");
  EXPECT_EQ(p.lines_read(), 2);
  p.close_input();  // cat sees end of file and exits
  EXPECT_EQ(p.read_line(in(10s)).status, Status::Closed);
  EXPECT_EQ(p.exit_description(), "exited with status 0");
}

TEST(LineProcess, ASilentProcessTimesOut) {
  LineProcess p("cat > /dev/null");
  ASSERT_EQ(p.write_line("hello", in(10s)), Status::Ok);
  const auto start = LineProcess::Clock::now();
  EXPECT_EQ(p.read_line(in(150ms)).status, Status::TimedOut);
  EXPECT_GE(LineProcess::Clock::now() - start, 150ms);
  EXPECT_EQ(p.exit_description(std::chrono::milliseconds(0)), "still running");
}  // the destructor ends it: closing its input is enough for cat

TEST(LineProcess, AnExitIsReportedWithItsStatus) {
  LineProcess p("read line; echo \"got $line\"; exit 3");
  ASSERT_EQ(p.write_line("x", in(10s)), Status::Ok);
  EXPECT_EQ(p.read_line(in(10s)).line, "got x");
  EXPECT_EQ(p.read_line(in(10s)).status, Status::Closed);
  EXPECT_EQ(p.exit_description(), "exited with status 3");
}

TEST(LineProcess, WritingToAnExitedProcessIsClosedNotSigpipe) {
  std::signal(SIGPIPE, SIG_DFL);  // as in a program that never touched it: the signal would kill
  LineProcess p("exit 0");
  EXPECT_EQ(p.read_line(in(10s)).status, Status::Closed);  // its output closed: it has exited
  ASSERT_EQ(p.exit_description(), "exited with status 0");
  // Without the SIGPIPE handling this write kills the test process.
  EXPECT_EQ(p.write_line(std::string(100000, 'x'), in(10s)), Status::Closed);
}

TEST(LineProcess, AProcessThatDoesNotReadTimesOutTheWriter) {
  // Never reads: the pipe fills. `exec` makes sleep the process the destructor kills; a
  // sleep left behind by a killed shell would hold the test's output open for 30 s.
  LineProcess p("exec sleep 30");
  EXPECT_EQ(p.write_line(std::string(1 << 20, 'x'), in(200ms)), Status::TimedOut);
}  // closing its input does not end sleep: the destructor kills it after a second

TEST(LineProcess, AnOverlongLineIsRefused) {
  LineProcess p("head -c 1100000 /dev/zero | tr '\\0' a; echo");
  EXPECT_EQ(p.read_line(in(10s)).status, Status::TooLong);
}

// The limit is exact, however the pipe splits the bytes: the last read can bring the end of
// the line and its newline together.
TEST(LineProcess, TheLineLimitIsExact) {
  LineProcess at_limit("head -c 1048576 /dev/zero | tr '\\0' a; echo");
  static_assert(LineProcess::kMaxLine == 1048576);
  const auto r = at_limit.read_line(in(10s));
  EXPECT_EQ(r.status, Status::Ok);
  EXPECT_EQ(r.line.size(), LineProcess::kMaxLine);
  for (int i = 0; i < 20; ++i) {
    LineProcess one_over("head -c 1048577 /dev/zero | tr '\\0' a; echo");
    ASSERT_EQ(one_over.read_line(in(10s)).status, Status::TooLong) << "try " << i;
  }
}

TEST(LineProcess, ALastLineWithoutItsNewlineIsStillALine) {
  LineProcess p("printf 'last'");
  const auto r = p.read_line(in(10s));
  EXPECT_EQ(r.status, Status::Ok);
  EXPECT_EQ(r.line, "last");
  EXPECT_EQ(p.read_line(in(10s)).status, Status::Closed);
}

TEST(LineProcess, ACommandThatDoesNotExistExitsWithTheShellsStatus) {
  LineProcess p("/nonexistent/program --flag");
  EXPECT_EQ(p.read_line(in(10s)).status, Status::Closed);
  EXPECT_EQ(p.exit_description(), "exited with status 127");
}

}  // namespace
}  // namespace rlzoo
