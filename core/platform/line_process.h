// A child process spoken to in lines of text: `/bin/sh -c COMMAND` with its standard input
// and output on pipes to us and its standard error shared with ours (so what it prints there,
// a Python traceback say, reaches the user). Used to seat programs outside rlzoo in a game
// (envs/doudizhu/outside_player.h).
//
//  * Reads and writes wait at most until a deadline and then say so; a process that stops
//    reading or never answers cannot hang the caller.
//  * Writing to a process that has exited gives Closed, never SIGPIPE (the signal is held
//    back on the writing thread only; the process-wide disposition is left alone). The child
//    starts with SIGPIPE at its default.
//  * A line longer than kMaxLine bytes is an error (TooLong) rather than unbounded memory.
//  * A last line without its newline before the process exits is still a line.
//  * The destructor closes the child's input (its cue to finish), waits up to a second for it
//    to exit, then kills it. (The shell runs a simple command in its own place, so that is the
//    program; what a compound command started sees its input close.) The child stays in our
//    process group, so Ctrl-C at the terminal reaches it too.
//
// Not thread-safe: one thread speaks to one process.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

namespace rlzoo {

class LineProcess {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr std::size_t kMaxLine = 1 << 20;

  enum class Status {
    Ok,
    Closed,    // the process closed its end (it exited, or closed the stream)
    TimedOut,  // the deadline passed first
    TooLong,   // read: no newline within kMaxLine bytes
  };
  struct Read {
    Status status = Status::Ok;
    std::string line;  // without its newline (and without a trailing '\r')
  };

  // Starts the command. Throws UserError naming it when the shell cannot be started.
  explicit LineProcess(std::string command);
  ~LineProcess();
  LineProcess(const LineProcess&) = delete;
  LineProcess& operator=(const LineProcess&) = delete;

  const std::string& command() const { return command_; }
  pid_t pid() const { return pid_; }
  // Lines read so far (the number of the last line read() returned).
  std::int64_t lines_read() const { return lines_read_; }

  // Writes `line` and a newline.
  Status write_line(std::string_view line, Clock::time_point deadline);
  // The next line of the process's output.
  Read read_line(Clock::time_point deadline);
  // Closes the process's standard input (end of file for it).
  void close_input();
  // How the process ended, waiting for it up to `limit`: "exited with status 1", "killed by
  // signal 9", or "still running" (it is left running).
  std::string exit_description(std::chrono::milliseconds limit = std::chrono::milliseconds(1000));

 private:
  void reap(std::chrono::milliseconds limit);

  std::string command_;
  pid_t pid_ = -1;
  int to_child_ = -1;    // its standard input
  int from_child_ = -1;  // its standard output
  std::string pending_;  // bytes read past the last line returned
  bool eof_ = false;
  std::int64_t lines_read_ = 0;
  bool reaped_ = false;
  int wait_status_ = 0;
};

}  // namespace rlzoo
