// A thread's own nice value: raised for the calling thread only, capped at 19.
#include <gtest/gtest.h>

#include <algorithm>
#include <thread>

#include "core/common/error.h"
#include "core/platform/thread_priority.h"

namespace rlzoo {
namespace {

TEST(ThreadPriority, RaisesTheCallingThreadsNiceOnlyUpTo19) {
  const int base = current_thread_nice();
  int raised = -100, capped = -100;
  std::thread t([&] {
    raise_current_thread_nice(2);
    raised = current_thread_nice();
    raise_current_thread_nice(40);
    capped = current_thread_nice();
  });
  t.join();
  EXPECT_EQ(raised, std::min(19, base + 2));
  EXPECT_EQ(capped, 19);
  EXPECT_EQ(current_thread_nice(), base) << "the other threads keep theirs";
  EXPECT_ANY_THROW(raise_current_thread_nice(-1));
}

}  // namespace
}  // namespace rlzoo
