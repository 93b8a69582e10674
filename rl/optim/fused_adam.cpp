#include "rl/optim/fused_adam.h"

#include "core/torch/compat.h"
#include <torch/serialize/input-archive.h>

#include <cmath>
#include <cstdint>
#include <memory>

#include "core/torch/plain_tensor.h"

namespace rlzoo {

namespace {

struct AdamScalars {
  float beta1, one_minus_beta1, beta2, one_minus_beta2, sqrt_bias_correction2, eps, neg_step_size, weight_decay;
};

// One parameter's Adam update. Compiled for AVX2 and for the baseline, picked at load time; the
// arithmetic (no fused multiply-add: "avx2" does not enable FMA) rounds the same either way.
__attribute__((target_clones("avx2", "default"))) void adam_pass(float* __restrict p, const float* __restrict g,
                                                                  float* __restrict m, float* __restrict v,
                                                                  std::int64_t n, AdamScalars s) {
  for (std::int64_t i = 0; i < n; ++i) {
    const float gi = s.weight_decay != 0.0f ? g[i] + s.weight_decay * p[i] : g[i];
    m[i] = m[i] * s.beta1 + s.one_minus_beta1 * gi;
    v[i] = v[i] * s.beta2 + s.one_minus_beta2 * gi * gi;
    const float denom = std::sqrt(v[i]) / s.sqrt_bias_correction2 + s.eps;
    p[i] = p[i] + s.neg_step_size * (m[i] / denom);
  }
}


}  // namespace

bool FusedAdam::fusable() const {
  for (const auto& group : param_groups()) {
    if (static_cast<const torch::optim::AdamOptions&>(group.options()).amsgrad()) return false;
    for (const auto& p : group.params())
      if (p.grad().defined() && (!is_plain_cpu(p, torch::kFloat32) || !is_plain_cpu(p.grad(), torch::kFloat32)))
        return false;
  }
  return true;
}

torch::optim::AdamParamState& FusedAdam::state_of(const torch::Tensor& p) {
  const void* impl = p.unsafeGetTensorImpl();
  for (auto& [key, state] : cache_)
    if (key == impl) return *state;
  // New to this optimiser: its state is made as Adam::step makes it (under Adam's own key,
  // which differs between LibTorch 1.13 and 2.x: core/torch/compat.h).
  auto& found = optimizer_param_state_or_make(*this, p, [&] {
    auto fresh = std::make_unique<torch::optim::AdamParamState>();
    fresh->step(0);
    fresh->exp_avg(torch::zeros_like(p, torch::MemoryFormat::Preserve));
    fresh->exp_avg_sq(torch::zeros_like(p, torch::MemoryFormat::Preserve));
    return fresh;
  });
  auto* state = static_cast<torch::optim::AdamParamState*>(&found);
  cache_.emplace_back(impl, state);
  return *state;
}

torch::Tensor FusedAdam::step(LossClosure closure) {
  last_step_fused_ = fusable();
  if (!last_step_fused_) return Adam::step(std::move(closure));
  torch::NoGradGuard no_grad;
  torch::Tensor loss;
  if (closure) {
    at::AutoGradMode enable_grad(true);
    loss = closure();
  }
  for (auto& group : param_groups()) {
    const auto& o = static_cast<const torch::optim::AdamOptions&>(group.options());
    const double beta1 = std::get<0>(o.betas()), beta2 = std::get<1>(o.betas());
    for (auto& p : group.params()) {
      const auto& grad = p.grad();
      if (!grad.defined()) continue;
      auto& state = state_of(p);
      state.step(state.step() + 1);
      const auto t = static_cast<double>(state.step());
      const double bias_correction1 = 1 - std::pow(beta1, t), bias_correction2 = 1 - std::pow(beta2, t);
      const AdamScalars s{static_cast<float>(beta1),
                          static_cast<float>(1 - beta1),
                          static_cast<float>(beta2),
                          static_cast<float>(1 - beta2),
                          static_cast<float>(std::sqrt(bias_correction2)),
                          static_cast<float>(o.eps()),
                          static_cast<float>(-(o.lr() / bias_correction1)),
                          static_cast<float>(o.weight_decay())};
      adam_pass(p.data_ptr<float>(), grad.data_ptr<float>(), state.exp_avg().data_ptr<float>(),
                state.exp_avg_sq().data_ptr<float>(), p.numel(), s);
    }
  }
  return loss;
}

void FusedAdam::load(torch::serialize::InputArchive& archive) {
  cache_.clear();
  Adam::load(archive);
}

}  // namespace rlzoo
