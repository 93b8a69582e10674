#include "core/platform/line_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

#include <fmt/format.h>

#include "core/common/error.h"

extern char** environ;

namespace rlzoo {

namespace {

using Clock = LineProcess::Clock;

// Milliseconds until `deadline` for poll(): 0 once it has passed, rounded up otherwise.
int poll_timeout(Clock::time_point deadline) {
  const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return left <= 0 ? 0 : static_cast<int>(std::min<std::int64_t>(left, 1 << 30));
}

// Holds SIGPIPE back on this thread for a write to a pipe whose reader may be gone, then
// discards the one it raised, if any, so that it is never delivered.
class SigpipeHeld {
 public:
  SigpipeHeld() {
    sigemptyset(&pipe_);
    sigaddset(&pipe_, SIGPIPE);
    sigset_t pending;
    sigpending(&pending);
    was_pending_ = sigismember(&pending, SIGPIPE) == 1;
    pthread_sigmask(SIG_BLOCK, &pipe_, &old_);
  }
  ~SigpipeHeld() {
    if (broke && !was_pending_) {
      const timespec none{0, 0};
      while (sigtimedwait(&pipe_, nullptr, &none) < 0 && errno == EINTR) {
      }
    }
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  bool broke = false;

 private:
  sigset_t pipe_, old_;
  bool was_pending_ = false;
};

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

}  // namespace

LineProcess::LineProcess(std::string command) : command_(std::move(command)) {
  int in[2], out[2];
  if (pipe2(in, O_CLOEXEC) != 0) throw UserError(fmt::format("`{}`: cannot make a pipe: {}", command_, std::strerror(errno)));
  if (pipe2(out, O_CLOEXEC) != 0) {
    ::close(in[0]);
    ::close(in[1]);
    throw UserError(fmt::format("`{}`: cannot make a pipe: {}", command_, std::strerror(errno)));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in[0], 0);  // dup2 clears close-on-exec on 0 and 1
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t defaults, none;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  sigemptyset(&none);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
  std::string sh = "sh", dash_c = "-c";
  char* argv[] = {sh.data(), dash_c.data(), command_.data(), nullptr};
  const int rc = posix_spawn(&pid_, "/bin/sh", &actions, &attr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  ::close(in[0]);
  ::close(out[1]);
  if (rc != 0) {
    ::close(in[1]);
    ::close(out[0]);
    pid_ = -1;
    throw UserError(fmt::format("`{}`: cannot start /bin/sh: {}", command_, std::strerror(rc)));
  }
  to_child_ = in[1];
  from_child_ = out[0];
  fcntl(to_child_, F_SETFL, fcntl(to_child_, F_GETFL) | O_NONBLOCK);
  fcntl(from_child_, F_SETFL, fcntl(from_child_, F_GETFL) | O_NONBLOCK);
}

LineProcess::~LineProcess() {
  close_input();
  close_fd(from_child_);
  if (pid_ > 0 && !reaped_) {
    reap(std::chrono::milliseconds(1000));
    if (!reaped_) {
      ::kill(pid_, SIGKILL);
      while (waitpid(pid_, &wait_status_, 0) < 0 && errno == EINTR) {
      }
    }
  }
}

LineProcess::Status LineProcess::write_line(std::string_view line, Clock::time_point deadline) {
  if (to_child_ < 0) return Status::Closed;
  std::string data;
  data.reserve(line.size() + 1);
  data.append(line);
  data.push_back('\n');
  std::size_t done = 0;
  SigpipeHeld hold;
  while (done < data.size()) {
    const ssize_t n = ::write(to_child_, data.data() + done, data.size() - done);
    if (n > 0) {
      done += static_cast<std::size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EPIPE) {
      hold.broke = true;
      return Status::Closed;
    }
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) return Status::Closed;
    pollfd p{to_child_, POLLOUT, 0};
    const int ready = ::poll(&p, 1, poll_timeout(deadline));
    if (ready == 0) return Status::TimedOut;
    if (ready < 0 && errno != EINTR) return Status::Closed;
  }
  return Status::Ok;
}

LineProcess::Read LineProcess::read_line(Clock::time_point deadline) {
  for (;;) {
    if (const auto nl = pending_.find('\n'); nl != std::string::npos) {
      // The last read may have brought the rest of an over-long line and its newline at once.
      if (nl > kMaxLine) return {Status::TooLong, {}};
      Read r{Status::Ok, pending_.substr(0, nl)};
      pending_.erase(0, nl + 1);
      if (!r.line.empty() && r.line.back() == '\r') r.line.pop_back();
      ++lines_read_;
      return r;
    }
    if (pending_.size() > kMaxLine) return {Status::TooLong, {}};
    if (eof_ || from_child_ < 0) {
      if (pending_.empty()) return {Status::Closed, {}};
      pending_.push_back('\n');  // a last line without its newline is still a line
      continue;
    }
    char buffer[65536];
    const ssize_t n = ::read(from_child_, buffer, sizeof buffer);
    if (n > 0) {
      pending_.append(buffer, static_cast<std::size_t>(n));
      continue;
    }
    if (n == 0) {
      eof_ = true;
      continue;
    }
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) {
      eof_ = true;
      continue;
    }
    pollfd p{from_child_, POLLIN, 0};
    const int ready = ::poll(&p, 1, poll_timeout(deadline));
    if (ready == 0) return {Status::TimedOut, {}};
    if (ready < 0 && errno != EINTR) eof_ = true;
  }
}

void LineProcess::close_input() { close_fd(to_child_); }

void LineProcess::reap(std::chrono::milliseconds limit) {
  if (pid_ <= 0 || reaped_) return;
  const auto deadline = Clock::now() + limit;
  for (;;) {
    const pid_t r = waitpid(pid_, &wait_status_, WNOHANG);
    if (r == pid_ || (r < 0 && errno != EINTR)) {
      reaped_ = true;
      return;
    }
    if (Clock::now() >= deadline) return;
    // A child has no descriptor to wait on with a deadline (short of pidfd); look again soon.
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

std::string LineProcess::exit_description(std::chrono::milliseconds limit) {
  reap(limit);
  if (!reaped_) return "still running";
  if (WIFSIGNALED(wait_status_)) return fmt::format("killed by signal {}", WTERMSIG(wait_status_));
  return fmt::format("exited with status {}", WEXITSTATUS(wait_status_));
}

}  // namespace rlzoo
