#include "algorithms/ppo/ppo_fused_loss.h"

#include <torch/autograd.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/torch/plain_tensor.h"

namespace rlzoo {

namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// What one pass over the minibatch needs besides the differentiable inputs.
struct LossInputs {
  const float *old_log_probs, *advantages, *returns, *old_values;
  double clip, clip_vf, ent_coef, vf_coef;
  bool clip_values, normalize_advantage;
};

// The pass's running sums and the minibatch's advantage normalisation, shared by both
// distributions: the surrogate and value terms of a row given its log-ratio.
class Pass {
 public:
  Pass(const LossInputs& in, std::int64_t rows) : in_(in), inv_rows_(1.0 / static_cast<double>(rows)) {
    // As ppo_loss(): (a - mean) / (unbiased std + 1e-8), over more than one row.
    if (in.normalize_advantage && rows > 1) {
      double s = 0, ss = 0;
      for (std::int64_t i = 0; i < rows; ++i) s += in.advantages[i];
      adv_mean_ = s * inv_rows_;
      for (std::int64_t i = 0; i < rows; ++i) ss += (in.advantages[i] - adv_mean_) * (in.advantages[i] - adv_mean_);
      adv_scale_ = 1.0 / (std::sqrt(ss / static_cast<double>(rows - 1)) + 1e-8);
    }
  }
  double inv_rows() const { return inv_rows_; }

  // Row i's surrogate, value loss, KL and clip statistics, and the entropy given; writes
  // d loss / d log pi(a) and d loss / d value (per unit of the incoming gradient) to `grads`.
  void row(std::int64_t i, double log_prob, double entropy, float value, float* grads) {
    const double a = (in_.advantages[i] - adv_mean_) * adv_scale_;
    const double log_ratio = log_prob - in_.old_log_probs[i];
    const double r = std::exp(log_ratio);
    const double s1 = a * r, s2 = a * std::clamp(r, 1.0 - in_.clip, 1.0 + in_.clip);
    pg_ += -std::min(s1, s2);
    // The surrogate's gradient flows through r unless the clipped term is the smaller one.
    grads[0] = static_cast<float>(s2 < s1 ? 0.0 : -a * r * inv_rows_);
    double predicted = value;
    bool value_grad = true;
    if (in_.clip_values) {
      const double d = value - in_.old_values[i];
      value_grad = d >= -in_.clip_vf && d <= in_.clip_vf;
      predicted = in_.old_values[i] + std::clamp(d, -in_.clip_vf, in_.clip_vf);
    }
    const double err = predicted - in_.returns[i];
    value_ += err * err;
    grads[1] = static_cast<float>(value_grad ? in_.vf_coef * 2.0 * err * inv_rows_ : 0.0);
    entropy_ += entropy;
    kl_ += (r - 1.0) - log_ratio;
    clipped_ += std::abs(r - 1.0) > in_.clip ? 1.0 : 0.0;
  }

  // stats = {pg, value, entropy loss, approx_kl, clip_fraction}; returns the loss.
  double finish(double* stats) const {
    stats[0] = pg_ * inv_rows_;
    stats[1] = value_ * inv_rows_;
    stats[2] = -entropy_ * inv_rows_;
    stats[3] = kl_ * inv_rows_;
    stats[4] = clipped_ * inv_rows_;
    return stats[0] + in_.ent_coef * stats[2] + in_.vf_coef * stats[1];
  }

 private:
  const LossInputs& in_;
  double inv_rows_, adv_mean_ = 0, adv_scale_ = 1;
  double pg_ = 0, value_ = 0, entropy_ = 0, kl_ = 0, clipped_ = 0;
};

// The Categorical loss's pass over the rows: log_probs [rows, n] and row_grads [rows, 3]
// (d/d log pi(a), d/d value, the row's entropy) for its gradient pass; returns the loss.
double categorical_forward(const LossInputs& in, const PpoCategoricalRows& x, float* lp, float* rg, double* stats) {
  const std::int64_t rows = x.rows, n = x.n;
  Pass pass(in, rows);
  for (std::int64_t i = 0; i < rows; ++i) {
    const float* zi = x.logits + i * n;
    float* lpi = lp + i * n;
    float mx = -INFINITY;
    for (std::int64_t j = 0; j < n; ++j) {
      lpi[j] = (x.mask && !x.mask[i * n + j]) ? -1e8f : zi[j];  // as Categorical masks
      mx = std::max(mx, lpi[j]);
    }
    double sum = 0;
    for (std::int64_t j = 0; j < n; ++j) sum += std::exp(static_cast<double>(lpi[j]) - mx);
    const double lse = mx + std::log(sum);
    double h = 0;
    for (std::int64_t j = 0; j < n; ++j) {
      lpi[j] = static_cast<float>(lpi[j] - lse);
      h -= std::exp(static_cast<double>(lpi[j])) * lpi[j];
    }
    pass.row(i, lpi[x.actions[i]], h, x.values[i], rg + 3 * i);
    rg[3 * i + 2] = static_cast<float>(h);
  }
  return pass.finish(stats);
}

struct CategoricalLoss : public torch::autograd::Function<CategoricalLoss> {
  static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& logits, const torch::Tensor& values,
                               const LossInputs* in, const torch::Tensor* actions_in, const torch::Tensor* mask_in,
                               double* stats) {
    // Pointers, not inputs: autograd takes no undefined tensor (no mask) as an input.
    const torch::Tensor &actions = *actions_in, &mask = *mask_in;
    const std::int64_t rows = logits.size(0), n = logits.size(1);
    auto log_probs = torch::empty({rows, n});
    auto row_grads = torch::empty({rows, 3});
    const double loss = categorical_forward(
        *in,
        {logits.data_ptr<float>(), values.data_ptr<float>(), actions.data_ptr<std::int64_t>(),
         mask.defined() ? mask.data_ptr<bool>() : nullptr, rows, n},
        log_probs.data_ptr<float>(), row_grads.data_ptr<float>(), stats);
    ctx->save_for_backward({log_probs, row_grads});
    ctx->saved_data["actions"] = actions;
    ctx->saved_data["mask"] = mask;
    ctx->saved_data["ent_coef"] = in->ent_coef;
    return torch::scalar_tensor(loss);
  }

  static variable_list backward(AutogradContext* ctx, variable_list grad_outputs) {
    const auto saved = ctx->get_saved_variables();
    const auto actions = ctx->saved_data["actions"].toTensor();
    const auto mask = ctx->saved_data["mask"].toTensor();
    const std::int64_t rows = saved[0].size(0), n = saved[0].size(1);
    auto d_logits = torch::empty({rows, n});
    auto d_values = torch::empty({rows});
    ppo_categorical_gradient_rows(saved[0].data_ptr<float>(), saved[1].data_ptr<float>(),
                                  {nullptr, nullptr, actions.data_ptr<std::int64_t>(),
                                   mask.defined() ? mask.data_ptr<bool>() : nullptr, rows, n},
                                  ctx->saved_data["ent_coef"].toDouble(), grad_outputs[0].item<double>(),
                                  d_logits.data_ptr<float>(), d_values.data_ptr<float>());
    return {d_logits, d_values, torch::Tensor(), torch::Tensor(), torch::Tensor(), torch::Tensor()};
  }
};

// A diagonal Gaussian: log pi(a) = sum_j -z_j^2 / 2 - log_std_j - log(2 pi) / 2 with
// z = (a - mean) / std; entropy sum_j log_std_j + 1/2 + log(2 pi) / 2.
struct GaussianLoss : public torch::autograd::Function<GaussianLoss> {
  static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& mean, const torch::Tensor& log_std,
                               const torch::Tensor& values, const LossInputs* in, const float* act, double* stats) {
    const std::int64_t rows = mean.size(0), d = mean.size(1), ls_row = log_std.stride(0);
    const float* mu = mean.data_ptr<float>();
    const float* ls = log_std.data_ptr<float>();
    const float* v = values.data_ptr<float>();
    const double half_log_2pi = 0.5 * std::log(2.0 * M_PI);
    auto zs = torch::empty({rows, d});
    auto row_grads = torch::empty({rows, 2});  // d/d log pi(a), d/d value
    float* z = zs.data_ptr<float>();
    float* rg = row_grads.data_ptr<float>();
    Pass pass(*in, rows);
    for (std::int64_t i = 0; i < rows; ++i) {
      double log_prob = 0, entropy = 0;
      for (std::int64_t j = 0; j < d; ++j) {
        const double lsj = ls[i * ls_row + j];
        const double zj = (static_cast<double>(act[i * d + j]) - mu[i * d + j]) * std::exp(-lsj);
        z[i * d + j] = static_cast<float>(zj);
        log_prob += -0.5 * zj * zj - lsj - half_log_2pi;
        entropy += lsj + 0.5 + half_log_2pi;
      }
      pass.row(i, log_prob, entropy, v[i], rg + 2 * i);
    }
    ctx->save_for_backward({zs, row_grads, log_std});
    ctx->saved_data["ent_coef"] = in->ent_coef;
    return torch::scalar_tensor(pass.finish(stats));
  }

  static variable_list backward(AutogradContext* ctx, variable_list grad_outputs) {
    const auto saved = ctx->get_saved_variables();
    const float* z = saved[0].data_ptr<float>();
    const float* rg = saved[1].data_ptr<float>();
    const auto& log_std = saved[2];
    const float* ls = log_std.data_ptr<float>();
    const std::int64_t rows = saved[0].size(0), d = saved[0].size(1), ls_row = log_std.stride(0);
    const double ent_coef = ctx->saved_data["ent_coef"].toDouble();
    const double g = grad_outputs[0].item<double>(), inv_rows = 1.0 / static_cast<double>(rows);
    auto d_mean = torch::empty({rows, d});
    auto d_log_std = torch::empty({rows, d});
    auto d_values = torch::empty({rows});
    float* dm = d_mean.data_ptr<float>();
    float* dls = d_log_std.data_ptr<float>();
    float* dv = d_values.data_ptr<float>();
    for (std::int64_t i = 0; i < rows; ++i) {
      const double d_lp = rg[2 * i];
      for (std::int64_t j = 0; j < d; ++j) {
        const double zj = z[i * d + j];
        // d log pi / d mean_j = z_j / std_j; d log pi / d log_std_j = z_j^2 - 1; d (-H) / d log_std_j = -1.
        dm[i * d + j] = static_cast<float>(g * d_lp * zj * std::exp(-static_cast<double>(ls[i * ls_row + j])));
        dls[i * d + j] = static_cast<float>(g * (d_lp * (zj * zj - 1.0) - ent_coef * inv_rows));
      }
      dv[i] = static_cast<float>(g * rg[2 * i + 1]);
    }
    return {d_mean, d_log_std, d_values, torch::Tensor(), torch::Tensor(), torch::Tensor()};
  }
};

LossInputs inputs_of(const RolloutBuffer::Batch& mb, const PpoConfig& cfg, double clip) {
  return {mb.old_log_probs.data_ptr<float>(),
          mb.advantages.data_ptr<float>(),
          mb.returns.data_ptr<float>(),
          mb.old_values.data_ptr<float>(),
          clip,
          cfg.clip_range_vf.value_or(0.0),
          cfg.ent_coef,
          cfg.vf_coef,
          cfg.clip_range_vf.has_value(),
          cfg.normalize_advantage};
}

// The loss's five statistics, in Pass::finish's order.
PpoLoss with_stats(PpoLoss out, const double* stats) {
  out.pg_loss = stats[0];
  out.value_loss = stats[1];
  out.entropy_loss = stats[2];
  out.approx_kl = stats[3];
  out.clip_fraction = stats[4];
  return out;
}

}  // namespace

bool ppo_fused_loss_applies(const ActionDistribution& dist, const torch::Tensor& values, const RolloutBuffer::Batch& mb) {
  const bool common = values.dim() == 1 && is_plain_cpu(values, torch::kFloat32) &&
                      is_plain_cpu(mb.old_log_probs, torch::kFloat32) && is_plain_cpu(mb.advantages, torch::kFloat32) &&
                      is_plain_cpu(mb.returns, torch::kFloat32) && is_plain_cpu(mb.old_values, torch::kFloat32);
  if (!common) return false;
  if (const Categorical* c = dist.categorical())
    return c->logits().dim() == 2 && is_plain_cpu(c->logits(), torch::kFloat32) && is_plain_cpu(mb.actions, torch::kInt64) &&
           (!c->mask().defined() || is_plain_cpu(c->mask(), torch::kBool));
  const DiagGaussian* g = dist.gaussian();
  if (g == nullptr) return false;
  const auto& ls = g->log_std();
  return g->mean().dim() == 2 && is_plain_cpu(g->mean(), torch::kFloat32) && ls.device().is_cpu() &&
         ls.scalar_type() == torch::kFloat32 && ls.sizes() == g->mean().sizes() && ls.stride(1) == 1 &&
         (ls.stride(0) == 0 || ls.stride(0) == ls.size(1)) && is_plain_cpu(mb.actions, torch::kFloat32) &&
         mb.actions.sizes() == g->mean().sizes();
}

PpoLoss ppo_fused_loss(const ActionDistribution& dist, const torch::Tensor& values, const RolloutBuffer::Batch& mb,
                       const PpoConfig& cfg, double clip) {
  double stats[5];
  PpoLoss out;
  const LossInputs in = inputs_of(mb, cfg, clip);
  if (const Categorical* c = dist.categorical()) {
    out.loss = CategoricalLoss::apply(c->logits(), values, &in, &mb.actions, &c->mask(), stats);
  } else {
    const DiagGaussian* g = dist.gaussian();
    out.loss = GaussianLoss::apply(g->mean(), g->log_std(), values, &in, mb.actions.data_ptr<float>(), stats);
  }
  return with_stats(std::move(out), stats);
}

PpoLoss ppo_categorical_loss_rows(const PpoCategoricalRows& x, const RolloutBuffer::Batch& mb, const PpoConfig& cfg,
                                  double clip, float* log_probs, float* row_grads) {
  double stats[5];
  PpoLoss out;
  out.loss = torch::scalar_tensor(categorical_forward(inputs_of(mb, cfg, clip), x, log_probs, row_grads, stats));
  return with_stats(std::move(out), stats);
}

void ppo_categorical_gradient_rows(const float* lp, const float* rg, const PpoCategoricalRows& x, double ent_coef,
                                   double g, float* dz, float* dv) {
  const std::int64_t rows = x.rows, n = x.n;
  const double inv_rows = 1.0 / static_cast<double>(rows);
  for (std::int64_t i = 0; i < rows; ++i) {
    const float* lpi = lp + i * n;
    const double d_lp = rg[3 * i], h = rg[3 * i + 2];
    for (std::int64_t j = 0; j < n; ++j) {
      const double pj = std::exp(static_cast<double>(lpi[j]));
      // d log pi(a) / d z_j = [j = a] - p_j; d (-H) / d z_j = p_j (log p_j + H), both per row.
      const double d = d_lp * ((j == x.actions[i] ? 1.0 : 0.0) - pj) + ent_coef * inv_rows * pj * (lpi[j] + h);
      dz[i * n + j] = (x.mask && !x.mask[i * n + j]) ? 0.0f : static_cast<float>(g * d);
    }
    dv[i] = static_cast<float>(g * rg[3 * i + 1]);
  }
}

}  // namespace rlzoo
