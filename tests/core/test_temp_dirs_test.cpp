// test::make_temp_dir's promise (tests/support/test_paths.h): the process that made a dir
// removes it when it exits, unless a test failed or RLZOO_KEEP_TEST_TMP is set, and a forked
// child never removes its parent's dirs. Each case forks a child that makes a dir and exits.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "tests/support/test_paths.h"

namespace rlzoo {
namespace {

namespace fs = std::filesystem;

enum class Ending { passed, failed, kept_by_env };

struct ChildDir {
  std::string dir;  // what the child made
  std::string err;  // what it wrote to stderr
};

// A forked child makes a temp dir, writes its path into `scratch`, fails its copy of the
// running test when asked, then exits as a test process does (its exit handlers run).
ChildDir dir_made_by_a_child(Ending ending, const std::string& scratch) {
  const std::string path_file = scratch + "/path", err_file = scratch + "/stderr";
  const pid_t pid = fork();
  if (pid == 0) {
    const int err = open(err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int null = open("/dev/null", O_WRONLY);
    if (err < 0 || null < 0 || dup2(err, 2) < 0 || dup2(null, 1) < 0) _exit(3);
    if (ending == Ending::kept_by_env)
      setenv("RLZOO_KEEP_TEST_TMP", "1", 1);
    else
      unsetenv("RLZOO_KEEP_TEST_TMP");
    const std::string dir = test::make_temp_dir("rlzoo-temp-dir-probe");
    std::ofstream(path_file) << dir;
    if (ending == Ending::failed) ADD_FAILURE() << "the child's copy of this test fails on purpose";
    std::exit(0);
  }
  int status = 0;
  EXPECT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child status " << status;
  return {test::read_file_or_empty(path_file), test::read_file_or_empty(err_file)};
}

TEST(TestTempDirs, TheMakerRemovesItsDirAtExitAndAChildLeavesItsParentsAlone) {
  const std::string scratch = test::make_temp_dir("rlzoo-temp-dir-test");  // the parent's
  const ChildDir made = dir_made_by_a_child(Ending::passed, scratch);
  ASSERT_FALSE(made.dir.empty());
  EXPECT_FALSE(fs::exists(made.dir)) << made.dir << " outlived the process that made it";
  EXPECT_TRUE(fs::is_directory(scratch)) << "the child removed its parent's " << scratch;
  EXPECT_EQ(made.err, "");
}

TEST(TestTempDirs, AFailedTestKeepsItsDirsAndSaysWhere) {
  const std::string scratch = test::make_temp_dir("rlzoo-temp-dir-test");
  const ChildDir made = dir_made_by_a_child(Ending::failed, scratch);
  ASSERT_FALSE(made.dir.empty());
  EXPECT_TRUE(fs::is_directory(made.dir));
  EXPECT_NE(made.err.find("kept 1 test dir(s), the first " + made.dir + " (a test failed)"), std::string::npos)
      << made.err;
  fs::remove_all(made.dir);
}

TEST(TestTempDirs, RlzooKeepTestTmpKeepsThem) {
  const std::string scratch = test::make_temp_dir("rlzoo-temp-dir-test");
  const ChildDir made = dir_made_by_a_child(Ending::kept_by_env, scratch);
  ASSERT_FALSE(made.dir.empty());
  EXPECT_TRUE(fs::is_directory(made.dir));
  EXPECT_NE(made.err.find("(RLZOO_KEEP_TEST_TMP is set)"), std::string::npos) << made.err;
  fs::remove_all(made.dir);
}

}  // namespace
}  // namespace rlzoo
