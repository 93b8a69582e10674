// The machine's one-thread sgemm rate through the BLAS that LibTorch uses: 512 x 512 x 512
// products back to back, the yardstick of `rlzoo bench learner` and `rlzoo bench doudizhu`.
#pragma once

namespace rlzoo::cli {

// Median GFLOP/s over `repeats` timed runs of `seconds` each, on the calling thread.
double sgemm_peak_gflops(double seconds, int repeats);

}  // namespace rlzoo::cli
