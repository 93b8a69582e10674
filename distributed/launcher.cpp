#include "distributed/launcher.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <optional>
#include <thread>

#include "core/common/error.h"
#include "core/runtime/stop.h"

namespace rlzoo {

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

pid_t spawn(const std::vector<std::string>& argv, const std::string& log_path) {
  std::vector<std::string> args = argv;
  std::vector<char*> cargs;
  for (auto& a : args) cargs.push_back(a.data());
  cargs.push_back(nullptr);
  const pid_t pid = fork();
  if (pid < 0) throw UserError("launch: fork failed");
  if (pid == 0) {
    if (!log_path.empty()) {
      const int fd = open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
      if (fd >= 0) {
        dup2(fd, 1);
        dup2(fd, 2);
      }
    }
    execv(cargs[0], cargs.data());
    _exit(127);
  }
  return pid;
}

std::string describe(int status) {
  if (WIFSIGNALED(status)) return fmt::format("killed by signal {}", WTERMSIG(status));
  return fmt::format("exited with status {}", WEXITSTATUS(status));
}

struct Child {
  std::string name;
  std::vector<std::string> argv;
  std::string log;
  pid_t pid = -1;
  bool learner = false;
  bool done = false;
  int status = 0;
  int crashes = 0;                 // consecutive
  Clock::time_point started, restart_at;
};

}  // namespace

int run_launch(const LaunchOptions& o) {
  if (o.actors < 1) throw UserError(fmt::format("--actors {}: need at least 1", o.actors));
  if (o.learners < 1 || o.learners > o.actors)
    throw UserError(fmt::format("--learners {}: need 1..{} (every learner needs an actor)", o.learners, o.actors));
  if (o.run_dir.empty()) throw UserError("launch needs --run-dir");
  if (o.resume && o.learners != 1) throw UserError("launch: a resumed run has one learner");
  if (!o.log_dir.empty()) fs::create_directories(o.log_dir);
  auto log_of = [&](const std::string& name) { return o.log_dir.empty() ? "" : (fs::path(o.log_dir) / (name + ".log")).string(); };

  std::vector<Child> children;
  std::vector<int> ports;
  const std::string rendezvous = o.learners > 1 ? fmt::format("127.0.0.1:{}", free_loopback_port()) : "";
  for (int r = 0; r < o.learners; ++r) {
    ports.push_back(free_loopback_port());
    const int actors_here = o.actors / o.learners + (r < o.actors % o.learners ? 1 : 0);
    Child c;
    c.name = o.learners > 1 ? fmt::format("learner{}", r) : "learner";
    c.learner = true;
    c.argv = {o.executable, "learner", "-q", "--listen", fmt::format("127.0.0.1:{}", ports.back())};
    const std::string dir = o.learners > 1 ? (fs::path(o.run_dir) / c.name).string() : o.run_dir;
    if (o.resume) {
      for (const std::string& a : {std::string("--resume"), dir}) c.argv.push_back(a);
    } else {
      c.argv.insert(c.argv.end(), o.learner_args.begin(), o.learner_args.end());
      for (const std::string& a : {std::string("--run-dir"), dir, std::string("--set"),
                                   fmt::format("runtime.actors={}", actors_here)})
        c.argv.push_back(a);
    }
    if (o.learners > 1)
      for (const std::string& a : {std::string("--learners"), std::to_string(o.learners), std::string("--rank"),
                                   std::to_string(r), std::string("--rendezvous"), rendezvous})
        c.argv.push_back(a);
    c.log = log_of(c.name);
    children.push_back(std::move(c));
  }
  for (int i = 0; i < o.actors; ++i) {
    Child c;
    c.name = fmt::format("actor{}", i);
    c.argv = {o.executable, "actor", "--connect", fmt::format("127.0.0.1:{}", ports[static_cast<std::size_t>(i % o.learners)]),
              "--actor-id", std::to_string(i / o.learners)};
    c.log = log_of(c.name);
    children.push_back(std::move(c));
  }

  SignalStop signals;
  auto start = [&](Child& c) {
    c.pid = spawn(c.argv, c.log);
    c.started = Clock::now();
    spdlog::info("launch: {} started (pid {})", c.name, c.pid);
  };
  for (auto& c : children) start(c);

  int result = 0;
  bool stopping = false;
  std::optional<Clock::time_point> actors_deadline;
  for (;;) {
    if (signal_stop_requested() && !stopping) {
      stopping = true;
      spdlog::warn("launch: stopping (signal {})", stop_signal());
      for (auto& c : children)
        if (c.pid > 0) kill(c.pid, SIGTERM);
    }
    int status = 0;
    const pid_t pid = waitpid(-1, &status, WNOHANG);
    if (pid > 0) {
      for (auto& c : children) {
        if (c.pid != pid) continue;
        c.pid = -1;
        c.status = status;
        const bool clean = WIFEXITED(status) && WEXITSTATUS(status) == 0;
        if (c.learner) {
          c.done = true;
          spdlog::info("launch: {} {}", c.name, describe(status));
          if (!clean && result == 0) result = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        } else if (clean || stopping) {
          c.done = true;
          spdlog::info("launch: {} {}", c.name, describe(status));
        } else {
          // A crash: back off longer the more often it crashes; a long healthy run resets it.
          if (Clock::now() - c.started > std::chrono::seconds(60)) c.crashes = 0;
          const double wait_s = std::min(o.max_backoff_s, 0.5 * static_cast<double>(1 << std::min(c.crashes, 10)));
          ++c.crashes;
          c.restart_at = Clock::now() + std::chrono::milliseconds(static_cast<std::int64_t>(wait_s * 1000));
          spdlog::warn("launch: {} {}; restarting in {:.1f} s", c.name, describe(status), wait_s);
        }
      }
    }
    bool learners_done = true;
    for (const auto& c : children) learners_done = learners_done && (!c.learner || c.done);
    if (learners_done && !stopping) {
      // Actors hear "finished" from the learner and exit; give them a moment, then stop the rest.
      stopping = true;
      actors_deadline = Clock::now() + std::chrono::seconds(5);
    }
    if (actors_deadline && Clock::now() >= *actors_deadline) {
      actors_deadline.reset();
      for (auto& c : children)
        if (c.pid > 0) kill(c.pid, SIGTERM);
    }
    bool all_done = true;
    for (auto& c : children) {
      if (!c.done && c.pid < 0 && !c.learner && !stopping && Clock::now() >= c.restart_at) start(c);
      if (!c.learner && c.pid < 0 && stopping) c.done = true;
      all_done = all_done && c.done && c.pid < 0;
    }
    if (all_done) break;
    if (pid <= 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));  // polling children and timers
  }
  if (const int sig = stop_signal(); sig != 0 && result == 0) result = 128 + sig;
  return result;
}

}  // namespace rlzoo
