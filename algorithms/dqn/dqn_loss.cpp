#include "algorithms/dqn/dqn_loss.h"

#include <torch/autograd.h>
#include <torch/nn/functional/loss.h>

#include <cmath>

#include "core/torch/plain_tensor.h"

namespace rlzoo {

namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// A constant input the loops read: a plain CPU array outside any graph.
bool plain(const torch::Tensor& t, torch::ScalarType type) { return is_plain_cpu(t, type) && !t.requires_grad(); }

// forward(q_all, actions, targets, huber, stats): the loss; stats = {value, mean taken Q}.
struct TdLossFunction : public torch::autograd::Function<TdLossFunction> {
  static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& q_all, const torch::Tensor& actions,
                               const torch::Tensor& targets, bool huber, double* stats) {
    const std::int64_t rows = q_all.size(0), n = q_all.size(1);
    auto slopes = torch::empty({rows});  // d loss / d q_taken per row, before the incoming gradient
    const DqnLossValue l = dqn_td_rows(q_all.data_ptr<float>(), n, actions.data_ptr<std::int64_t>(), 0,
                                       targets.data_ptr<float>(), rows, huber, slopes.data_ptr<float>());
    stats[0] = l.value;
    stats[1] = l.q_mean;
    ctx->save_for_backward({slopes});
    ctx->saved_data["actions"] = actions;
    ctx->saved_data["n"] = n;
    return torch::scalar_tensor(static_cast<float>(stats[0]));
  }

  static variable_list backward(AutogradContext* ctx, variable_list grad_outputs) {
    const auto slopes = ctx->get_saved_variables()[0];
    const auto actions = ctx->saved_data["actions"].toTensor();
    const std::int64_t n = ctx->saved_data["n"].toInt(), rows = slopes.size(0);
    const float g = grad_outputs[0].item<float>();
    auto d_q = torch::zeros({rows, n});
    float* dq = d_q.data_ptr<float>();
    const float* slope = slopes.data_ptr<float>();
    const std::int64_t* a = actions.data_ptr<std::int64_t>();
    for (std::int64_t i = 0; i < rows; ++i) dq[i * n + a[i]] = g * slope[i];
    return {d_q, torch::Tensor(), torch::Tensor(), torch::Tensor(), torch::Tensor()};
  }
};

}  // namespace

torch::Tensor dqn_targets(const torch::Tensor& next_q, const torch::Tensor& online_next_q, const torch::Tensor& rewards,
                          const torch::Tensor& discounts, const torch::Tensor& terminated) {
  torch::NoGradGuard no_grad;
  const bool raw = plain(next_q, torch::kFloat32) && next_q.dim() == 2 &&
                   (!online_next_q.defined() || plain(online_next_q, torch::kFloat32)) &&
                   plain(rewards, torch::kFloat32) && plain(discounts, torch::kFloat32) &&
                   plain(terminated, torch::kFloat32);
  if (!raw) {
    const torch::Tensor next_v = online_next_q.defined()
                                     ? next_q.gather(1, online_next_q.argmax(1, /*keepdim=*/true)).squeeze(1)
                                     : std::get<0>(next_q.max(1));
    // Time-outs are not terminal: `terminated` is 0 there and the bootstrap stays.
    return rewards + discounts * (1.0f - terminated) * next_v;
  }
  const std::int64_t rows = next_q.size(0), n = next_q.size(1);
  auto out = torch::empty({rows});
  dqn_target_rows(next_q.data_ptr<float>(), online_next_q.defined() ? online_next_q.data_ptr<float>() : nullptr,
                  rewards.data_ptr<float>(), discounts.data_ptr<float>(), terminated.data_ptr<float>(), rows, n,
                  out.data_ptr<float>());
  return out;
}

DqnLoss dqn_td_loss(const torch::Tensor& q_all, const torch::Tensor& actions, const torch::Tensor& targets,
                    bool huber) {
  DqnLoss out;
  const bool raw = q_all.dim() == 2 && is_plain_cpu(q_all, torch::kFloat32) && plain(actions, torch::kInt64) &&
                   plain(targets, torch::kFloat32);
  if (raw) {
    double stats[2];
    out.loss = TdLossFunction::apply(q_all, actions, targets, huber, stats);
    out.value = stats[0];
    out.q_mean = stats[1];
    return out;
  }
  const torch::Tensor q = q_all.gather(1, actions.unsqueeze(1)).squeeze(1);
  out.loss = huber ? torch::nn::functional::smooth_l1_loss(q, targets) : torch::nn::functional::mse_loss(q, targets);
  out.value = out.loss.item<double>();
  out.q_mean = q.detach().mean().item<double>();
  return out;
}

void dqn_target_rows(const float* next_q, const float* online_next_q, const float* rewards, const float* discounts,
                     const float* terminated, std::int64_t rows, std::int64_t n, float* out) {
  // The first best action, as argmax and max pick it; a NaN counts as the best (it propagates,
  // and the gradient guard stops the update).
  auto best_of = [n](const float* row) {
    std::int64_t best = 0;
    for (std::int64_t j = 0; j < n; ++j) {
      if (std::isnan(row[j])) return j;
      if (row[j] > row[best]) best = j;
    }
    return best;
  };
  for (std::int64_t i = 0; i < rows; ++i) {
    const float* qi = next_q + i * n;
    const float v = online_next_q ? qi[best_of(online_next_q + i * n)] : qi[best_of(qi)];
    out[i] = rewards[i] + discounts[i] * (1.0f - terminated[i]) * v;
  }
}

DqnLossValue dqn_td_rows(const float* q, std::int64_t n, const std::int64_t* actions, std::int64_t action_offset,
                         const float* targets, std::int64_t rows, bool huber, float* slope) {
  const double inv_rows = 1.0 / static_cast<double>(rows);
  double sum = 0, q_sum = 0;
  for (std::int64_t i = 0; i < rows; ++i) {
    const float qi = q[i * n + (actions[i] - action_offset)];
    const double d = static_cast<double>(qi) - targets[i];
    q_sum += qi;
    if (huber) {
      const bool quadratic = std::abs(d) < 1.0;
      sum += quadratic ? 0.5 * d * d : std::abs(d) - 0.5;
      slope[i] = static_cast<float>((quadratic ? d : (d > 0 ? 1.0 : -1.0)) * inv_rows);
    } else {
      sum += d * d;
      slope[i] = static_cast<float>(2.0 * d * inv_rows);
    }
  }
  return {sum * inv_rows, q_sum * inv_rows};
}

}  // namespace rlzoo
