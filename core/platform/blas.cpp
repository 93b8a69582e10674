#include "core/platform/blas.h"

#include <dlfcn.h>

#include "core/common/error.h"

namespace rlzoo {

namespace {

using GetConfigFn = char* (*)();
using GetThreadsFn = int (*)();
using SetThreadsFn = void (*)(int);

// dlsym returns void*; POSIX guarantees it converts to a function pointer.
template <class Fn>
Fn lookup(const char* symbol) {
  return reinterpret_cast<Fn>(::dlsym(RTLD_DEFAULT, symbol));
}

}  // namespace

BlasInfo detect_blas() {
  BlasInfo info;
  info.loaded = ::dlsym(RTLD_DEFAULT, "dgemm_") != nullptr;
  const auto get_config = lookup<GetConfigFn>("openblas_get_config");
  const auto get_threads = lookup<GetThreadsFn>("openblas_get_num_threads");
  if (get_config == nullptr) {
    info.name = "reference/unknown";
    return info;
  }
  info.is_openblas = true;
  info.loaded = true;
  const char* config = get_config();
  const std::string text = config != nullptr ? config : "";
  // The config string already starts with "OpenBLAS <version>" in every release we know.
  info.name = text.starts_with("OpenBLAS") ? text : "OpenBLAS " + text;
  if (get_threads != nullptr) info.threads = get_threads();
  return info;
}

bool set_blas_threads(int n) {
  RLZOO_CHECK(n >= 1, "BLAS thread count must be >= 1");
  const auto set_threads = lookup<SetThreadsFn>("openblas_set_num_threads");
  if (set_threads == nullptr) return false;
  set_threads(n);
  return true;
}

}  // namespace rlzoo
