#include "algorithms/ppo/ppo_categorical_loss.h"

#include <torch/autograd.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace rlzoo {

namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

bool plain_cpu(const torch::Tensor& t, torch::ScalarType type) {
  return t.defined() && t.device().is_cpu() && t.scalar_type() == type && t.is_contiguous();
}

// What one pass over the minibatch needs besides the two differentiable inputs.
struct LossInputs {
  const std::int64_t* actions;
  const float *old_log_probs, *advantages, *returns, *old_values;
  const bool* mask;  // [B, n] or null
  double clip, clip_vf, ent_coef, vf_coef;
  bool clip_values, normalize_advantage;
  torch::Tensor actions_tensor, mask_tensor;  // kept for the backward pass
};

struct LossFunction : public torch::autograd::Function<LossFunction> {
  // Returns the loss; fills `stats` (pg, value and entropy losses, approx_kl, clip_fraction).
  static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& logits, const torch::Tensor& values,
                               const LossInputs* in, double* stats) {
    const std::int64_t rows = logits.size(0), n = logits.size(1);
    const float* z = logits.data_ptr<float>();
    const float* v = values.data_ptr<float>();
    // Advantages normalised as ppo_loss() does: (a - mean) / (unbiased std + 1e-8), rows > 1.
    double adv_mean = 0, adv_scale = 1;
    if (in->normalize_advantage && rows > 1) {
      double s = 0, ss = 0;
      for (std::int64_t i = 0; i < rows; ++i) s += in->advantages[i];
      adv_mean = s / static_cast<double>(rows);
      for (std::int64_t i = 0; i < rows; ++i) ss += (in->advantages[i] - adv_mean) * (in->advantages[i] - adv_mean);
      adv_scale = 1.0 / (std::sqrt(ss / static_cast<double>(rows - 1)) + 1e-8);
    }
    // Per row, for the backward pass: d loss / d log pi(a) and d loss / d value (per unit of
    // the incoming gradient), and the entropy; log-probabilities [B, n].
    auto log_probs = torch::empty({rows, n});
    auto row_grads = torch::empty({rows, 3});
    float* lp = log_probs.data_ptr<float>();
    float* rg = row_grads.data_ptr<float>();
    const double inv_rows = 1.0 / static_cast<double>(rows);
    double pg = 0, vl = 0, ent = 0, kl = 0, clipped = 0;
    for (std::int64_t i = 0; i < rows; ++i) {
      const float* zi = z + i * n;
      float* lpi = lp + i * n;
      const bool* mi = in->mask ? in->mask + i * n : nullptr;
      float mx = -INFINITY;
      for (std::int64_t j = 0; j < n; ++j) {
        const float zj = (mi && !mi[j]) ? -1e8f : zi[j];
        lpi[j] = zj;
        mx = std::max(mx, zj);
      }
      double sum = 0;
      for (std::int64_t j = 0; j < n; ++j) sum += std::exp(static_cast<double>(lpi[j]) - mx);
      const double lse = mx + std::log(sum);
      double h = 0;
      for (std::int64_t j = 0; j < n; ++j) {
        lpi[j] = static_cast<float>(lpi[j] - lse);
        const double pj = std::exp(static_cast<double>(lpi[j]));
        h -= pj * lpi[j];
      }
      const double a = (in->advantages[i] - adv_mean) * adv_scale;
      const double log_ratio = static_cast<double>(lpi[in->actions[i]]) - in->old_log_probs[i];
      const double r = std::exp(log_ratio);
      const double rc = std::clamp(r, 1.0 - in->clip, 1.0 + in->clip);
      const double s1 = a * r, s2 = a * rc;
      pg += -std::min(s1, s2);
      // The surrogate's gradient flows through r unless the clipped term is the smaller one.
      rg[3 * i] = static_cast<float>(s2 < s1 ? 0.0 : -a * r * inv_rows);
      double vp = v[i];
      bool value_grad = true;
      if (in->clip_values) {
        const double d = v[i] - in->old_values[i];
        const double dc = std::clamp(d, -in->clip_vf, in->clip_vf);
        value_grad = d >= -in->clip_vf && d <= in->clip_vf;
        vp = in->old_values[i] + dc;
      }
      const double err = vp - in->returns[i];
      vl += err * err;
      rg[3 * i + 1] = static_cast<float>(value_grad ? in->vf_coef * 2.0 * err * inv_rows : 0.0);
      rg[3 * i + 2] = static_cast<float>(h);
      ent += h;
      kl += (r - 1.0) - log_ratio;
      clipped += std::abs(r - 1.0) > in->clip ? 1.0 : 0.0;
    }
    stats[0] = pg * inv_rows;
    stats[1] = vl * inv_rows;
    stats[2] = -ent * inv_rows;
    stats[3] = kl * inv_rows;
    stats[4] = clipped * inv_rows;
    ctx->save_for_backward({log_probs, row_grads});
    ctx->saved_data["actions"] = in->actions_tensor;
    ctx->saved_data["mask"] = in->mask_tensor;
    ctx->saved_data["ent_coef"] = in->ent_coef;
    return torch::scalar_tensor(stats[0] + in->ent_coef * stats[2] + in->vf_coef * stats[1]);
  }

  static variable_list backward(AutogradContext* ctx, variable_list grad_outputs) {
    const auto saved = ctx->get_saved_variables();
    const float* lp = saved[0].data_ptr<float>();
    const float* rg = saved[1].data_ptr<float>();
    const auto actions_tensor = ctx->saved_data["actions"].toTensor();
    const auto mask_tensor = ctx->saved_data["mask"].toTensor();
    const auto* actions = actions_tensor.data_ptr<std::int64_t>();
    const bool* mask = mask_tensor.defined() ? mask_tensor.data_ptr<bool>() : nullptr;
    const double ent_coef = ctx->saved_data["ent_coef"].toDouble();
    const std::int64_t rows = saved[0].size(0), n = saved[0].size(1);
    const double g = grad_outputs[0].item<double>(), inv_rows = 1.0 / static_cast<double>(rows);
    auto d_logits = torch::empty({rows, n});
    auto d_values = torch::empty({rows});
    float* dz = d_logits.data_ptr<float>();
    float* dv = d_values.data_ptr<float>();
    for (std::int64_t i = 0; i < rows; ++i) {
      const float* lpi = lp + i * n;
      const double d_lp = rg[3 * i], h = rg[3 * i + 2];
      for (std::int64_t j = 0; j < n; ++j) {
        const double pj = std::exp(static_cast<double>(lpi[j]));
        // d log pi(a) / d z_j = [j = a] - p_j; d (-H) / d z_j = p_j (log p_j + H), both per row.
        const double d = d_lp * ((j == actions[i] ? 1.0 : 0.0) - pj) + ent_coef * inv_rows * pj * (lpi[j] + h);
        dz[i * n + j] = (mask && !mask[i * n + j]) ? 0.0f : static_cast<float>(g * d);
      }
      dv[i] = static_cast<float>(g * rg[3 * i + 1]);
    }
    return {d_logits, d_values, torch::Tensor(), torch::Tensor()};
  }
};

}  // namespace

bool ppo_categorical_loss_applies(const torch::Tensor& logits, const torch::Tensor& values,
                                  const RolloutBuffer::Batch& mb) {
  return logits.dim() == 2 && plain_cpu(logits, torch::kFloat32) && values.dim() == 1 &&
         plain_cpu(values, torch::kFloat32) && plain_cpu(mb.actions, torch::kInt64) &&
         plain_cpu(mb.old_log_probs, torch::kFloat32) && plain_cpu(mb.advantages, torch::kFloat32) &&
         plain_cpu(mb.returns, torch::kFloat32) && plain_cpu(mb.old_values, torch::kFloat32) &&
         (!mb.action_masks.defined() || plain_cpu(mb.action_masks, torch::kBool));
}

PpoLoss ppo_categorical_loss(const torch::Tensor& logits, const torch::Tensor& values, const RolloutBuffer::Batch& mb,
                             const PpoConfig& cfg, double clip) {
  const LossInputs in{mb.actions.data_ptr<std::int64_t>(),
                      mb.old_log_probs.data_ptr<float>(),
                      mb.advantages.data_ptr<float>(),
                      mb.returns.data_ptr<float>(),
                      mb.old_values.data_ptr<float>(),
                      mb.action_masks.defined() ? mb.action_masks.data_ptr<bool>() : nullptr,
                      clip,
                      cfg.clip_range_vf.value_or(0.0),
                      cfg.ent_coef,
                      cfg.vf_coef,
                      cfg.clip_range_vf.has_value(),
                      cfg.normalize_advantage,
                      mb.actions,
                      mb.action_masks};
  double stats[5];
  PpoLoss out;
  out.loss = LossFunction::apply(logits, values, &in, stats);
  out.pg_loss = stats[0];
  out.value_loss = stats[1];
  out.entropy_loss = stats[2];
  out.approx_kl = stats[3];
  out.clip_fraction = stats[4];
  return out;
}

}  // namespace rlzoo
