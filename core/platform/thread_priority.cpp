#include "core/platform/thread_priority.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <system_error>

#include "core/common/error.h"

namespace rlzoo {

namespace {
// On Linux, setpriority(PRIO_PROCESS, tid) addresses one thread, not the whole process.
id_t this_thread_id() { return static_cast<id_t>(::gettid()); }
}  // namespace

int current_thread_nice() {
  errno = 0;  // -1 is a valid nice value: errno tells an error apart
  const int nice = ::getpriority(PRIO_PROCESS, this_thread_id());
  if (nice == -1 && errno != 0) throw std::system_error(errno, std::generic_category(), "getpriority");
  return nice;
}

void raise_current_thread_nice(int increment) {
  RLZOO_CHECK(increment >= 0, "raise_current_thread_nice: the increment must be >= 0");
  if (increment == 0) return;
  const int nice = std::min(19, current_thread_nice() + increment);
  if (::setpriority(PRIO_PROCESS, this_thread_id(), nice) != 0)
    throw std::system_error(errno, std::generic_category(), "setpriority (runtime.actor_nice)");
}

}  // namespace rlzoo
