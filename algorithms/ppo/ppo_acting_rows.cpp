#include "algorithms/ppo/ppo_acting_rows.h"

#include <algorithm>
#include <cmath>

#include "core/torch/plain_tensor.h"

namespace rlzoo {

namespace {

// Rows [action (d floats), log-prob, value] of a diagonal Gaussian: a = mean + std * noise,
// and log_prob's (a - mean) * exp(-log_std) terms summed in DiagGaussian::log_prob's order.
// mean, noise, std and inv_std are [rows, d]; row r's log-std is at log_std + r * log_std_row.
void write_gaussian_rows(std::int64_t rows, std::int64_t d, const float* mean, const float* noise, const float* std_dev,
                         const float* inv_std, const float* log_std, std::int64_t log_std_row, const float* values,
                         float* out) {
  const float v_log = static_cast<float>(0.5 * std::log(2.0 * M_PI));
  for (std::int64_t r = 0; r < rows; ++r) {
    float log_prob = 0;
    for (std::int64_t j = 0; j < d; ++j) {
      const std::int64_t k = r * d + j;
      const float a = mean[k] + std_dev[k] * noise[k];
      const float zz = (a - mean[k]) * inv_std[k];
      log_prob += ((-0.5f * zz) * zz - log_std[r * log_std_row + j]) - v_log;
      out[r * (d + 2) + j] = a;
    }
    out[r * (d + 2) + d] = log_prob;
    out[r * (d + 2) + d + 1] = values[r];
  }
}

}  // namespace

// The Categorical rows and the Gaussian ones written in one pass where the tensors are plain
// float32 CPU ones (the same values as log_prob() and cat() give), else through those operations.
torch::Tensor sampled_rows(const ActionDistribution& dist, const torch::Tensor& values, std::int64_t d) {
  const std::int64_t rows = values.size(0);
  const bool plain_values = values.dim() == 1 && is_plain_cpu(values, torch::kFloat32);
  if (const Categorical* c = dist.categorical(); c && plain_values && is_plain_cpu(c->log_probs(), torch::kFloat32)) {
    const auto a = c->sample().contiguous();
    auto out = torch::empty({rows, 3});
    float* o = out.data_ptr<float>();
    const float* lp = c->log_probs().data_ptr<float>();
    const float* v = values.data_ptr<float>();
    const std::int64_t* ap = a.data_ptr<std::int64_t>();
    const std::int64_t n = c->log_probs().size(1);
    for (std::int64_t r = 0; r < rows; ++r) {
      o[3 * r] = static_cast<float>(ap[r]);
      o[3 * r + 1] = lp[r * n + ap[r]];
      o[3 * r + 2] = v[r];
    }
    return out;
  }
  if (const DiagGaussian* g = dist.gaussian(); g && plain_values && is_plain_cpu(g->mean(), torch::kFloat32) &&
                                                 g->mean().dim() == 2 &&
                                                 g->log_std().scalar_type() == torch::kFloat32 &&
                                                 g->log_std().stride(1) == 1 &&
                                                 (g->log_std().stride(0) == 0 || g->log_std().stride(0) == d)) {
    // mean + exp(log_std) * noise, and log_prob's (a - mean) exp(-log_std): the exponentials
    // by LibTorch as DiagGaussian takes them, the rest elementwise in the same order.
    const auto noise = torch::randn_like(g->mean());
    const auto std_dev = g->log_std().exp().contiguous(), inv_std = torch::exp(-g->log_std()).contiguous();
    auto out = torch::empty({rows, d + 2});
    write_gaussian_rows(rows, d, g->mean().data_ptr<float>(), noise.data_ptr<float>(), std_dev.data_ptr<float>(),
                        inv_std.data_ptr<float>(), g->log_std().data_ptr<float>(), g->log_std().stride(0),
                        values.data_ptr<float>(), out.data_ptr<float>());
    return out;
  }
  const auto a = dist.sample();
  return torch::cat({a.to(torch::kFloat32).reshape({rows, d}), dist.log_prob(a).reshape({rows, 1}),
                     values.reshape({rows, 1})},
                    1);
}

// The noise is drawn into a kept tensor as randn_like draws it; std and 1/std are LibTorch's
// exponentials over the [rows, d] broadcast, as DiagGaussian takes them.
bool PlainGaussianRows::operator()(const ActorCriticImpl& policy, const float* obs, std::int64_t rows, std::int64_t d,
                                   float* out) {
  const torch::Tensor& log_std = policy.log_std();
  if (!policy.continuous() || !is_plain_cpu(log_std, torch::kFloat32) || log_std.numel() != d) return false;
  means_.resize(static_cast<std::size_t>(rows * d));
  values_.resize(static_cast<std::size_t>(rows));
  if (!policy.plain_heads(obs, rows, means_.data(), values_.data(), scratch_)) return false;
  const float* ls = log_std.data_ptr<float>();
  if (!std_dev_.defined() || std_dev_.size(0) != rows || !std::equal(ls, ls + d, log_std_seen_.begin())) {
    torch::NoGradGuard no_grad;
    const auto broadcast = log_std.expand({rows, d});
    std_dev_ = broadcast.exp().contiguous();
    inv_std_ = torch::exp(-broadcast).contiguous();
    noise_ = torch::empty({rows, d});
    log_std_seen_.assign(ls, ls + d);
  }
  noise_.normal_();
  write_gaussian_rows(rows, d, means_.data(), noise_.data_ptr<float>(), std_dev_.data_ptr<float>(),
                      inv_std_.data_ptr<float>(), ls, 0, values_.data(), out);
  return true;
}

}  // namespace rlzoo
