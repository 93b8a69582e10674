// Real faults while a CheckpointManager saves (docs/reliability.md): a process SIGKILLed at
// random moments of its saves, 50 times, and a write that the OS refuses (a file-size limit,
// the way a full disk refuses: write(2) fails part-way). After either, the latest checkpoint
// must load, and a failed save must name the path and leave the previous checkpoints intact.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <random>
#include <string>
#include <thread>

#include "core/checkpoint/manager.h"
#include "core/common/error.h"
#include "tests/support/test_paths.h"

namespace rlzoo {
namespace {

namespace fs = std::filesystem;
using ::testing::AllOf;
using ::testing::HasSubstr;

// A checkpoint whose blob says which step it belongs to, big enough (2 MB) that its commit takes
// long enough to be interrupted at every stage: data files, manifest, renames, pointer, rotation.
CheckpointWriter step_writer(std::int64_t step, std::size_t bytes = 2 << 20) {
  CheckpointWriter w(nlohmann::json{{"step", step}});
  std::string blob(bytes, static_cast<char>('a' + step % 26));
  w.add("model.pt", std::move(blob));
  w.add_json("state.json", {{"step", step}});
  return w;
}

// The child: saves steps first, first + 1, ... until it is killed, writing each step number to
// `fd` before it starts saving it (so the parent knows a save is under way). Every third step is
// saved twice, the second save replacing the first (as a resumed run that is interrupted before
// its first new step saves the step it resumed from again).
[[noreturn]] void save_forever(const fs::path& root, std::int64_t first_step, int fd) {
  CheckpointManager m(root, 2);
  for (std::int64_t step = first_step;; ++step) {
    for (int again = 0; again < (step % 3 == 0 ? 2 : 1); ++again) {
      if (write(fd, &step, sizeof step) != sizeof step) _exit(3);
      m.save(step, step_writer(step));
    }
  }
}

// A forked child that runs `child(write_fd)` (which must not return: it ends with _exit or is
// killed); the parent gets its pid and the read end of the pipe. pid -1 when fork or pipe failed.
struct Child {
  pid_t pid = -1;
  int read_fd = -1;
};
template <class F>
Child fork_with_pipe(F&& child) {
  int fds[2];
  if (pipe(fds) != 0) return {};
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    child(fds[1]);
    _exit(4);
  }
  close(fds[1]);
  return {pid, fds[0]};
}

TEST(CheckpointFaults, FiftySigkillsDuringSavesAlwaysLeaveALoadableLatestCheckpoint) {
  const fs::path root = fs::path(test::make_temp_dir("rlzoo-ckpt-kill")) / "checkpoints";
  std::mt19937 rng(20261123);
  std::int64_t next_step = 1, saved_before = 0;
  for (int round = 0; round < 50; ++round) {
    const auto [pid, read_fd] = fork_with_pipe([&](int fd) { save_forever(root, next_step, fd); });
    ASSERT_GE(pid, 0);
    // Wait until the child has begun a save (1 to 3 of them), then kill it a random 0 to 30 ms
    // later: inside a commit, between two, or in the pointer update or rotation.
    const int begun = std::uniform_int_distribution<int>(1, 3)(rng);
    std::int64_t step = 0;
    for (int i = 0; i < begun; ++i) ASSERT_EQ(read(read_fd, &step, sizeof step), static_cast<ssize_t>(sizeof step));
    std::this_thread::sleep_for(std::chrono::microseconds(std::uniform_int_distribution<int>(0, 30'000)(rng)));
    kill(pid, SIGKILL);
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFSIGNALED(status)) << "round " << round << ": the child stopped on its own (status " << status << ")";
    // Steps the child announced after the ones read above are not known here; it reached at
    // least `step`, so the next child continues after it.
    while (read(read_fd, &step, sizeof step) == static_cast<ssize_t>(sizeof step)) {
    }
    close(read_fd);
    next_step = step + 1;

    const LatestCheckpoint latest = CheckpointManager(root, 2).latest();
    if (saved_before > 0 || latest.reader) {
      ASSERT_TRUE(latest.reader.has_value()) << "round " << round << ": no loadable checkpoint after the kill";
      // The checkpoint is complete and internally consistent, and never older than one that
      // was already there before this round.
      const std::string model = latest.reader->read("model.pt");
      ASSERT_EQ(model.size(), std::size_t{2} << 20);
      EXPECT_EQ(model.front(), static_cast<char>('a' + latest.step % 26));
      EXPECT_EQ(latest.reader->read_json("state.json").at("step").get<std::int64_t>(), latest.step);
      EXPECT_GE(latest.step, saved_before) << "round " << round;
      saved_before = latest.step;
    }
  }
  EXPECT_GT(saved_before, 0) << "no save ever completed: the kills came too early to test anything";
  // A later run saves over whatever the kills left behind.
  CheckpointManager m(root, 2);
  m.save(next_step, step_writer(next_step, 16));
  EXPECT_EQ(m.latest().step, next_step);
  fs::remove_all(root.parent_path());
}

TEST(CheckpointFaults, AWriteTheOsRefusesKeepsThePreviousCheckpointAndNamesThePath) {
  const fs::path root = fs::path(test::make_temp_dir("rlzoo-ckpt-full")) / "checkpoints";
  CheckpointManager(root, 3).save(100, step_writer(100, 1000));
  // In a child (the limit is per process): files may grow to 64 KiB, so writing a 1 MB blob
  // fails part-way with EFBIG, as a full disk fails with ENOSPC. SIGXFSZ is ignored so that
  // write(2) returns the error instead of killing the process.
  const auto [pid, read_fd] = fork_with_pipe([&](int fd) {
    signal(SIGXFSZ, SIG_IGN);
    const rlimit limit{64 << 10, 64 << 10};
    if (setrlimit(RLIMIT_FSIZE, &limit) != 0) _exit(3);
    std::string message = "<no error>";
    try {
      CheckpointManager(root, 3).save(200, step_writer(200, 1 << 20));
    } catch (const UserError& e) {
      message = e.what();
    } catch (...) {
      message = "<not a UserError>";
    }
    (void)!write(fd, message.data(), message.size());
    _exit(0);
  });
  ASSERT_GE(pid, 0);
  std::string message;
  char buf[512];
  for (ssize_t n; (n = read(read_fd, buf, sizeof buf)) > 0;) message.append(buf, static_cast<std::size_t>(n));
  close(read_fd);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  // The error names the file being written and the OS's reason.
  EXPECT_THAT(message, AllOf(HasSubstr(root.string()), HasSubstr("model.pt"), HasSubstr("too large")));
  // Nothing of step 200 is left, and step 100 is the latest and loads.
  CheckpointManager m(root, 3);
  EXPECT_EQ(m.steps(), std::vector<std::int64_t>{100});
  const LatestCheckpoint latest = m.latest();
  ASSERT_TRUE(latest.reader.has_value());
  EXPECT_EQ(latest.step, 100);
  EXPECT_EQ(latest.reader->read("model.pt"), std::string(1000, static_cast<char>('a' + 100 % 26)));
  EXPECT_TRUE(latest.warnings.empty());
  for (const auto& e : fs::directory_iterator(root))
    EXPECT_FALSE(e.path().filename().string().starts_with(".")) << "left behind: " << e.path();
  fs::remove_all(root.parent_path());
}

}  // namespace
}  // namespace rlzoo
