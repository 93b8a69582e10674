#include "rl/nets/target_network.h"

#include <torch/utils.h>

#include "core/common/error.h"

namespace rlzoo {

void copy_module(const torch::nn::Module& src, torch::nn::Module& dst) { polyak_update(src, dst, 1.0); }

namespace {
// Plain float32 CPU tensors of one size: the update runs as one loop, without two LibTorch
// operations per parameter (the off-policy learners call it every gradient step).
bool plain_pair(const torch::Tensor& a, const torch::Tensor& b) {
  return a.scalar_type() == torch::kFloat32 && b.scalar_type() == torch::kFloat32 && a.device().is_cpu() &&
         b.device().is_cpu() && a.is_contiguous() && b.is_contiguous() && a.numel() == b.numel();
}
}  // namespace

void polyak_update(const torch::nn::Module& src, torch::nn::Module& dst, double tau) {
  torch::NoGradGuard no_grad;
  const auto s = src.parameters(), d = dst.parameters();
  RLZOO_CHECK(s.size() == d.size(), "polyak_update: the networks differ");
  const float keep = static_cast<float>(1.0 - tau), take = static_cast<float>(tau);
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (tau >= 1.0) {
      d[i].copy_(s[i]);
    } else if (plain_pair(s[i], d[i])) {
      const float* from = s[i].data_ptr<float>();
      float* to = d[i].data_ptr<float>();
      const std::int64_t n = d[i].numel();
      for (std::int64_t k = 0; k < n; ++k) to[k] = to[k] * keep + take * from[k];
    } else {
      d[i].mul_(1.0 - tau).add_(s[i], tau);
    }
  }
  const auto sb = src.buffers(), db = dst.buffers();
  for (std::size_t i = 0; i < sb.size(); ++i) db[i].copy_(sb[i]);
}

}  // namespace rlzoo
