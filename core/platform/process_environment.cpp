#include "core/platform/process_environment.h"

#include <cstdlib>

#if defined(__linux__) && defined(__GLIBC__)
#include <unistd.h>
#endif

namespace rlzoo {

void tune_process_environment(char** argv) {
#if defined(__linux__) && defined(__GLIBC__)
  if (std::getenv("RLZOO_PROCESS_TUNED")) return;
  setenv("RLZOO_PROCESS_TUNED", "1", 1);
  setenv("MALLOC_MMAP_THRESHOLD_", "33554432", 0);  // 0: keep the user's own setting
  setenv("MALLOC_TRIM_THRESHOLD_", "1073741824", 0);
  setenv("OMP_WAIT_POLICY", "PASSIVE", 0);
  execv("/proc/self/exe", argv);  // returns only when it failed: go on untuned
#else
  (void)argv;
#endif
}

}  // namespace rlzoo
