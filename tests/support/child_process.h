// Child processes for tests that run several `rlzoo` processes at once (a learner and its
// actors): start with output to a file, wait with a bound, signal.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace rlzoo::test {

class ChildProcess {
 public:
  ChildProcess() = default;
  // Starts argv[0] with argv in `cwd`, stdout and stderr appended to `log_path`.
  ChildProcess(const std::vector<std::string>& argv, const std::string& cwd, const std::string& log_path);
  ~ChildProcess();  // SIGKILLs and reaps a child still running
  ChildProcess(ChildProcess&& o) noexcept;
  ChildProcess& operator=(ChildProcess&& o) noexcept;

  pid_t pid() const { return pid_; }
  bool running() const { return pid_ > 0; }
  // Waits up to `limit` for the exit; returns the wait status, or -1 on timeout (then SIGKILLs
  // and reaps it).
  int wait(std::chrono::milliseconds limit);
  void signal(int sig) const;
  // SIGKILL and reap.
  void kill_now();

 private:
  pid_t pid_ = -1;
};

// Runs `rlzoo args...` in the source tree (where presets' relative paths resolve) to its end,
// stdout and stderr appended to `log_path`. Returns its exit status, or -1 when it ran past
// `limit` (then killed) or died of a signal.
int run_cli_to_end(const std::vector<std::string>& args, const std::string& log_path, std::chrono::milliseconds limit);

// Polls `ready` every 10 ms until it is true or `limit` passes. Returns its last value. (For
// conditions in other processes, such as a file they write; not for synchronising threads.)
bool wait_until(const std::function<bool()>& ready, std::chrono::milliseconds limit);

}  // namespace rlzoo::test
