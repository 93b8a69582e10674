#include "rl/nets/fused_critics.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/common/error.h"

namespace rlzoo {

std::optional<FusedCritics> FusedCritics::of(const ContinuousCritic& critic, std::int64_t obs_dim,
                                             std::int64_t action_dim) {
  std::vector<const FusedMlp*> chains;
  for (int i = 0; i < critic->n_critics(); ++i) {
    const FusedMlp* c = critic->plain_chain(i);
    if (!c || c->in_features() != obs_dim + action_dim) return std::nullopt;
    chains.push_back(c);
  }
  return FusedCritics(std::move(chains), obs_dim, action_dim);
}

FusedCritics::FusedCritics(std::vector<const FusedMlp*> chains, std::int64_t obs_dim, std::int64_t action_dim)
    : chains_(std::move(chains)), obs_dim_(obs_dim), action_dim_(action_dim), tapes_(chains_.size()) {}

bool FusedCritics::plain_parameters() const {
  return std::all_of(chains_.begin(), chains_.end(), [](const FusedMlp* c) { return c->plain_parameters(); });
}

void FusedCritics::input(const float* obs, const float* actions, std::int64_t rows) {
  const std::int64_t o = obs_dim_, d = action_dim_, w = o + d;
  input_.resize(static_cast<std::size_t>(rows * w));
  for (std::int64_t r = 0; r < rows; ++r) {
    std::copy(obs + r * o, obs + (r + 1) * o, input_.data() + r * w);
    std::copy(actions + r * d, actions + (r + 1) * d, input_.data() + r * w + o);
  }
}

void FusedCritics::min_q(const float* obs, const float* actions, std::int64_t rows, int n, float* out) {
  RLZOO_CHECK(n >= 1 && n <= size());
  input(obs, actions, rows);
  q_.resize(static_cast<std::size_t>(rows));
  std::fill(out, out + rows, std::numeric_limits<float>::infinity());
  for (int i = 0; i < n; ++i) {
    RLZOO_CHECK(chains_[static_cast<std::size_t>(i)]->forward_rows(input_.data(), rows, q_.data(), scratch_));
    // As LibTorch's min(0): a NaN wins, so that the loss check sees it.
    for (std::int64_t r = 0; r < rows; ++r) {
      const float q = q_[static_cast<std::size_t>(r)];
      if (q < out[r] || std::isnan(q)) out[r] = q;
    }
  }
}

double FusedCritics::regression_gradients(const float* obs, const float* actions, const float* target,
                                          std::int64_t rows, double scale) {
  input(obs, actions, rows);
  dy_.resize(static_cast<std::size_t>(rows));
  // d/dQ of scale mean((Q - y)^2), as autograd forms it: 2 (Q - y) x scale / rows.
  const auto grad_scale = static_cast<float>(scale / static_cast<double>(rows));
  double loss = 0.0;
  for (std::size_t i = 0; i < chains_.size(); ++i) {
    const float* q = chains_[i]->forward_tape(input_.data(), rows, tapes_[i]);
    double sum = 0.0;
    for (std::int64_t r = 0; r < rows; ++r) {
      const float diff = q[r] - target[r];
      sum += static_cast<double>(diff) * diff;
      dy_[static_cast<std::size_t>(r)] = 2.0f * diff * grad_scale;
    }
    loss += scale * sum / static_cast<double>(rows);
    chains_[i]->backward_tape(tapes_[i], dy_.data(), /*parameter_grads=*/true, nullptr);
  }
  return loss;
}

void FusedCritics::min_q_taped(const float* obs, const float* actions, std::int64_t rows, int n, float* q_min) {
  RLZOO_CHECK(n >= 1 && n <= size());
  input(obs, actions, rows);
  taped_rows_ = rows;
  taped_n_ = n;
  chosen_.assign(static_cast<std::size_t>(rows), 0);
  for (int i = 0; i < n; ++i) {
    const auto k = static_cast<std::size_t>(i);
    const float* q = chains_[k]->forward_tape(input_.data(), rows, tapes_[k]);
    for (std::int64_t r = 0; r < rows; ++r)
      if (i == 0 || q[r] < q_min[r] || (std::isnan(q[r]) && !std::isnan(q_min[r]))) {
        q_min[r] = q[r];
        chosen_[static_cast<std::size_t>(r)] = i;
      }
  }
}

void FusedCritics::action_gradients(const float* dq, float* grad_a) {
  RLZOO_CHECK(taped_n_ > 0, "FusedCritics::action_gradients before min_q_taped");
  const std::int64_t rows = taped_rows_, o = obs_dim_, d = action_dim_, w = o + d;
  std::fill(grad_a, grad_a + rows * d, 0.0f);
  dy_.resize(static_cast<std::size_t>(rows));
  dx_.resize(static_cast<std::size_t>(rows * w));
  for (int i = 0; i < taped_n_; ++i) {
    bool any = false;
    for (std::int64_t r = 0; r < rows; ++r) {
      const bool mine = chosen_[static_cast<std::size_t>(r)] == i;
      dy_[static_cast<std::size_t>(r)] = mine ? dq[r] : 0.0f;
      any = any || mine;
    }
    if (!any) continue;
    const auto k = static_cast<std::size_t>(i);
    chains_[k]->backward_tape(tapes_[k], dy_.data(), /*parameter_grads=*/false, dx_.data());
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t j = 0; j < d; ++j) grad_a[r * d + j] += dx_[static_cast<std::size_t>(r * w + o + j)];
  }
  taped_n_ = 0;
}

}  // namespace rlzoo
