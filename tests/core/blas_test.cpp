// BLAS detection without LibTorch. rlzoo_core_tests links no BLAS, so the process starts
// without one; the second test loads OpenBLAS itself (RTLD_GLOBAL, as a linked library would
// be) to check the positive path. tests/torch/threads_test.cpp checks the process LibTorch
// links.
#include <gtest/gtest.h>

#include <dlfcn.h>

#include "core/platform/blas.h"

namespace rlzoo {
namespace {

TEST(Blas, DetectionAgreesWithTheSymbolsInTheProcess) {
  const BlasInfo info = detect_blas();
  const bool has_openblas = ::dlsym(RTLD_DEFAULT, "openblas_get_config") != nullptr;
  EXPECT_EQ(info.is_openblas, has_openblas);
  if (!has_openblas) {
    EXPECT_EQ(info.name, "reference/unknown");
    EXPECT_EQ(info.threads, 0);
    EXPECT_FALSE(set_blas_threads(1));
  }
}

TEST(Blas, DetectsOpenBlasOnceLoaded) {
  void* lib = ::dlopen("libopenblas.so.0", RTLD_NOW | RTLD_GLOBAL);
  if (lib == nullptr) GTEST_SKIP() << "libopenblas.so.0 is not installed: " << ::dlerror();
  const BlasInfo info = detect_blas();
  EXPECT_TRUE(info.is_openblas);
  EXPECT_TRUE(info.loaded);
  EXPECT_EQ(info.name.rfind("OpenBLAS ", 0), 0u) << info.name;
  EXPECT_GE(info.threads, 1);

  ASSERT_TRUE(set_blas_threads(2));
  EXPECT_EQ(detect_blas().threads, 2);
  ASSERT_TRUE(set_blas_threads(1));
  EXPECT_EQ(detect_blas().threads, 1);
  // Left loaded on purpose: unloading a library that started threads is not safe.
}

}  // namespace
}  // namespace rlzoo
