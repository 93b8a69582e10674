// Thread pools of one rlzoo process: LibTorch's intra-op pool (OpenMP here), its inter-op
// pool, and OpenBLAS's own pthread pool (Debian's LibTorch calls the system BLAS). Bit-for-bit
// resume is promised only with fixed thread counts (reliability.md section 8), so runs set
// them explicitly through this one function.
#pragma once

#include "core/platform/blas.h"

namespace rlzoo {

struct ThreadSettings {
  int torch_threads = 0;    // at::get_num_threads() afterwards
  int interop_threads = 0;  // at::get_num_interop_threads() afterwards
  BlasInfo blas;            // detect_blas() afterwards
};

// Sets LibTorch's intra-op and inter-op pools to `torch_threads` and OpenBLAS to
// `blas_threads`; 0 leaves that library's default, negative values throw UserError.
//
// LibTorch lets the inter-op count be set only once per process and only before parallel
// work: the first call that asks for one sets it, later calls asking for a different count
// keep the first and log a warning (as does a call made after LibTorch fixed it itself).
//
// Logs one line ("threads: torch=1 interop=1 BLAS=OpenBLAS 0.3.21 ... threads=1") when the
// settings differ from the last line logged, and warns when the active BLAS is not OpenBLAS
// (about 7x slower); `announce` false logs nothing (an agent being built: the command may be
// printing JSON). Safe to call from several threads.
ThreadSettings configure_threads(int torch_threads, int blas_threads, bool announce = true);

}  // namespace rlzoo

namespace rlzoo {

// For a thread the runtime starts (an actor, the inference server): LibTorch ops on it run
// single-threaded. With Debian's OpenMP build this is the calling thread's own OpenMP setting,
// so a learner's torch_threads stays as configure_threads set it.
void use_one_torch_thread();

}  // namespace rlzoo
