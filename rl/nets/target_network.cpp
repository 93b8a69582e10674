#include "rl/nets/target_network.h"

#include <torch/utils.h>

#include "core/common/error.h"

namespace rlzoo {

void copy_module(const torch::nn::Module& src, torch::nn::Module& dst) { polyak_update(src, dst, 1.0); }

void polyak_update(const torch::nn::Module& src, torch::nn::Module& dst, double tau) {
  torch::NoGradGuard no_grad;
  const auto s = src.parameters(), d = dst.parameters();
  RLZOO_CHECK(s.size() == d.size(), "polyak_update: the networks differ");
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (tau >= 1.0)
      d[i].copy_(s[i]);
    else
      d[i].mul_(1.0 - tau).add_(s[i], tau);
  }
  const auto sb = src.buffers(), db = dst.buffers();
  for (std::size_t i = 0; i < sb.size(); ++i) db[i].copy_(sb[i]);
}

}  // namespace rlzoo
