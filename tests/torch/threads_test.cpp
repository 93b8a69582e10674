// Thread set-up and BLAS detection in a process that links LibTorch (and so the system BLAS).
#include <gtest/gtest.h>

#include <link.h>

#include <string>

#include "core/common/error.h"
#include "core/platform/blas.h"
#include "core/torch/threads.h"

namespace rlzoo {
namespace {

// Whether a shared object named libopenblas* is mapped (libblas.so.3 from the openblas
// alternative pulls in libopenblas.so.0).
bool openblas_mapped() {
  bool found = false;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        if (std::string(info->dlpi_name).find("libopenblas") != std::string::npos) *static_cast<bool*>(data) = true;
        return 0;
      },
      &found);
  return found;
}

TEST(Threads, DetectsTheBlasLibTorchLoaded) {
  const BlasInfo info = detect_blas();
  EXPECT_TRUE(info.loaded);
  EXPECT_EQ(info.is_openblas, openblas_mapped()) << info.name;
  if (info.is_openblas) {
    EXPECT_EQ(info.name.rfind("OpenBLAS ", 0), 0u) << info.name;
    EXPECT_GE(info.threads, 1);
  } else {
    EXPECT_EQ(info.name, "reference/unknown");
  }
}

TEST(Threads, ConfiguresTorchAndBlas) {
  const ThreadSettings s = configure_threads(1, 1);
  EXPECT_EQ(s.torch_threads, 1);
  EXPECT_EQ(s.interop_threads, 1);
  if (s.blas.is_openblas) {
    EXPECT_EQ(s.blas.threads, 1);
  }

  // Intra-op and BLAS counts can change; the inter-op count stays (LibTorch sets it once).
  const ThreadSettings again = configure_threads(2, 2);
  EXPECT_EQ(again.torch_threads, 2);
  EXPECT_EQ(again.interop_threads, 1);
  if (again.blas.is_openblas) {
    EXPECT_EQ(again.blas.threads, 2);
  }

  configure_threads(1, 1);
  EXPECT_THROW(configure_threads(-1, 1), UserError);
}

}  // namespace
}  // namespace rlzoo
