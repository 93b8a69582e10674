#include "apps/bench/sgemm_peak.h"

#include <torch/torch.h>

#include "apps/bench/bench_util.h"

namespace rlzoo::cli {

double sgemm_peak_gflops(double seconds, int repeats) {
  const auto a = torch::rand({512, 512}), b = torch::rand({512, 512});
  auto c = torch::empty({512, 512});
  const double rate = median_rate([&] { torch::mm_out(c, a, b); }, 1.0, seconds, repeats);
  return rate * 2.0 * 512 * 512 * 512 / 1e9;
}

}  // namespace rlzoo::cli
