#include "core/torch/threads.h"

#include <mutex>

#include <ATen/Parallel.h>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "core/common/error.h"

namespace rlzoo {

namespace {

std::mutex g_mutex;
int g_interop_requested = 0;  // the count our first successful request set; 0 = none yet

// at::set_num_interop_threads throws on a second call or after the pool started; remember what
// we set so that a repeated identical request is a silent no-op.
void set_interop_once(int n) {
  if (g_interop_requested == n) return;
  if (g_interop_requested != 0) {
    spdlog::warn("threads: inter-op threads stay at {} (LibTorch sets them once per process); {} ignored",
                 g_interop_requested, n);
    return;
  }
  try {
    at::set_num_interop_threads(n);
    g_interop_requested = n;
  } catch (const c10::Error&) {
    spdlog::warn("threads: inter-op threads were already fixed at {} before configure_threads ran; {} ignored",
                 at::get_num_interop_threads(), n);
  }
}

}  // namespace

ThreadSettings configure_threads(int torch_threads, int blas_threads, bool announce) {
  if (torch_threads < 0 || blas_threads < 0)
    throw UserError(fmt::format("thread counts must be >= 0 (0 = library default), got torch={} blas={}",
                                torch_threads, blas_threads));
  std::lock_guard<std::mutex> lock(g_mutex);
  if (torch_threads > 0) {
    at::set_num_threads(torch_threads);
    set_interop_once(torch_threads);
  }
  if (blas_threads > 0 && !set_blas_threads(blas_threads))
    spdlog::warn("threads: cannot set BLAS threads to {}: the active BLAS is not OpenBLAS", blas_threads);

  ThreadSettings s;
  s.torch_threads = at::get_num_threads();
  s.interop_threads = at::get_num_interop_threads();
  s.blas = detect_blas();
  if (!announce) return s;
  // Said once per change: learn() configures the threads on every call.
  static std::string last_said;
  const std::string said = fmt::format("threads: torch={} interop={} BLAS={} threads={}", s.torch_threads,
                                       s.interop_threads, s.blas.name, s.blas.threads);
  if (said != last_said) spdlog::info("{}", said);
  last_said = said;
  if (!s.blas.is_openblas)
    spdlog::warn("threads: the active BLAS is {}, not OpenBLAS; Debian's LibTorch uses the system libblas.so.3 and "
                 "OpenBLAS measured ~7x faster: sudo update-alternatives --config libblas.so.3-x86_64-linux-gnu",
                 s.blas.name);
  return s;
}

}  // namespace rlzoo

namespace rlzoo {

void use_one_torch_thread() { at::set_num_threads(1); }

}  // namespace rlzoo
