#include "tests/support/child_process.h"

#include "tests/support/test_paths.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <stdexcept>
#include <thread>

namespace rlzoo::test {

ChildProcess::ChildProcess(const std::vector<std::string>& argv, const std::string& cwd, const std::string& log_path) {
  std::vector<std::string> args = argv;
  std::vector<char*> cargs;
  for (auto& a : args) cargs.push_back(a.data());
  cargs.push_back(nullptr);
  const int fd = open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (fd < 0) throw std::runtime_error("cannot open " + log_path);
  pid_ = fork();
  if (pid_ < 0) throw std::runtime_error("fork failed");
  if (pid_ == 0) {
    dup2(fd, 1);
    dup2(fd, 2);
    if (chdir(cwd.c_str()) != 0) _exit(120);
    execv(cargs[0], cargs.data());
    _exit(121);
  }
  close(fd);
}

ChildProcess::~ChildProcess() {
  if (running()) kill_now();
}

ChildProcess::ChildProcess(ChildProcess&& o) noexcept : pid_(o.pid_) { o.pid_ = -1; }

ChildProcess& ChildProcess::operator=(ChildProcess&& o) noexcept {
  if (this != &o) {
    if (running()) kill_now();
    pid_ = o.pid_;
    o.pid_ = -1;
  }
  return *this;
}

int ChildProcess::wait(std::chrono::milliseconds limit) {
  int status = 0;
  const bool exited = wait_until([&] { return waitpid(pid_, &status, WNOHANG) == pid_; }, limit);
  if (!exited) {
    kill_now();
    return -1;
  }
  pid_ = -1;
  return status;
}

void ChildProcess::signal(int sig) const {
  if (pid_ > 0) ::kill(pid_, sig);
}

void ChildProcess::kill_now() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGKILL);
  int status = 0;
  waitpid(pid_, &status, 0);
  pid_ = -1;
}

int run_cli_to_end(const std::vector<std::string>& args, const std::string& log_path, std::chrono::milliseconds limit) {
  std::vector<std::string> argv{cli_path()};
  argv.insert(argv.end(), args.begin(), args.end());
  ChildProcess p(argv, source_dir(), log_path);
  const int status = p.wait(limit);
  return status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

bool wait_until(const std::function<bool()>& ready, std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!ready()) {
    if (std::chrono::steady_clock::now() >= deadline) return ready();
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

}  // namespace rlzoo::test
