// Which BLAS the process is using, found at run time. Debian's LibTorch calls the system
// libblas.so.3, which update-alternatives points at either the reference BLAS or OpenBLAS; the
// reference one is single-threaded and about 7x slower for our matrix sizes, so rlzoo reports
// which one is active and can set OpenBLAS's thread count.
//
// Detection looks up OpenBLAS's own entry points with dlsym(RTLD_DEFAULT, ...): it sees
// libraries in the global symbol scope (linked in, or dlopen'ed with RTLD_GLOBAL), not ones
// dlopen'ed with RTLD_LOCAL. Torch-free: a process that does not link a BLAS reports none.
#pragma once

#include <string>

namespace rlzoo {

struct BlasInfo {
  // "OpenBLAS 0.3.21 DYNAMIC_ARCH NO_AFFINITY Haswell MAX_THREADS=64" (openblas_get_config()),
  // or "reference/unknown".
  std::string name;
  bool is_openblas = false;
  // Whether any BLAS is loaded at all (dgemm_ resolves); false in a process without one.
  bool loaded = false;
  // OpenBLAS's current thread count; 0 when unknown (not OpenBLAS).
  int threads = 0;
};

BlasInfo detect_blas();

// Sets OpenBLAS's thread count (n >= 1). Returns false, changing nothing, when the active BLAS
// is not OpenBLAS (the reference BLAS is single-threaded anyway).
bool set_blas_threads(int n);

}  // namespace rlzoo
