#include "core/platform/allocator.h"

#include <cstdlib>

#if defined(__linux__) && defined(__GLIBC__)
#include <unistd.h>
#endif

namespace rlzoo {

void keep_freed_memory_in_heap(char** argv) {
#if defined(__linux__) && defined(__GLIBC__)
  if (std::getenv("RLZOO_MALLOC_TUNED")) return;
  setenv("RLZOO_MALLOC_TUNED", "1", 1);
  setenv("MALLOC_MMAP_THRESHOLD_", "33554432", 0);  // 0: keep the user's own setting
  setenv("MALLOC_TRIM_THRESHOLD_", "1073741824", 0);
  execv("/proc/self/exe", argv);  // returns only when it failed: go on untuned
#else
  (void)argv;
#endif
}

}  // namespace rlzoo
