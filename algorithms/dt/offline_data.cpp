#include "algorithms/dt/offline_data.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "core/common/error.h"

namespace rlzoo::dt {

torch::Tensor returns_to_go(const torch::Tensor& rewards) {
  const auto r = rewards.to(torch::kFloat64).contiguous();
  auto out = torch::empty_like(r);
  const auto* in = r.data_ptr<double>();
  auto* o = out.data_ptr<double>();
  double acc = 0;
  for (std::int64_t t = r.numel() - 1; t >= 0; --t) o[t] = acc += in[t];
  return out.to(torch::kFloat32);
}

OfflineData::OfflineData(const std::vector<OfflineEpisode>& episodes, bool discrete) : discrete_(discrete) {
  if (episodes.empty()) throw UserError("offline data: the dataset has no episodes");
  std::vector<torch::Tensor> s, a, rtg, ts;
  for (std::size_t i = 0; i < episodes.size(); ++i) {
    const auto& e = episodes[i];
    const auto T = e.states.size(0);
    if (T < 1 || e.actions.size(0) != T || e.rewards.numel() != T)
      throw UserError(fmt::format("offline data: episode {} has {} states, {} actions and {} rewards", i, T,
                                  e.actions.size(0), e.rewards.numel()));
    offsets_.push_back(total_steps_);
    lengths_.push_back(T);
    total_steps_ += T;
    returns_.push_back(e.rewards.to(torch::kFloat64).sum().item<double>());
    s.push_back(e.states.to(torch::kFloat32));
    a.push_back(discrete ? e.actions.to(torch::kInt64).reshape({T}) : e.actions.to(torch::kFloat32).reshape({T, -1}));
    rtg.push_back(returns_to_go(e.rewards));
    ts.push_back(torch::arange(T, torch::kInt64));
  }
  const auto states = torch::cat(s);
  mean_ = states.mean(0);
  std_ = states.std(0, /*unbiased=*/false);
  const auto norm = (states - mean_) / (std_ + 1e-6);
  // One zero row at index total_steps_ serves every padded entry.
  states_ = torch::cat({norm, torch::zeros({1, norm.size(1)})});
  const auto acts = torch::cat(a);
  actions_ = torch::cat({acts, torch::zeros_like(acts.slice(0, 0, 1))});
  rtg_ = torch::cat({torch::cat(rtg), torch::zeros({1})});
  timesteps_ = torch::cat({torch::cat(ts), torch::zeros({1}, torch::kInt64)});
  keep_top(1.0);
}

void OfflineData::keep_top(double fraction) {
  if (!(fraction > 0 && fraction <= 1))
    throw UserError(fmt::format("offline data: the fraction of steps to keep must be in (0, 1], got {}", fraction));
  std::vector<std::int64_t> order(lengths_.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](auto x, auto y) { return returns_[x] > returns_[y]; });
  kept_.clear();
  kept_cum_.clear();
  std::int64_t sum = 0;
  const double want = fraction * static_cast<double>(total_steps_);
  for (auto e : order) {
    if (!kept_.empty() && static_cast<double>(sum) >= want) break;
    kept_.push_back(e);
    sum += lengths_[e];
    kept_cum_.push_back(sum);
  }
}

WindowBatch OfflineData::windows(std::int64_t batch, std::int64_t K, double rtg_scale, std::int64_t max_ep_len,
                                 Rng& rng, WindowKind kind) const {
  const std::int64_t pad = total_steps_;
  std::vector<std::int64_t> idx(static_cast<std::size_t>(batch * K), pad);
  for (std::int64_t b = 0; b < batch; ++b) {
    // A uniformly drawn kept step: its episode and its place in it.
    const auto g = static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(kept_steps())));
    const auto k = std::upper_bound(kept_cum_.begin(), kept_cum_.end(), g) - kept_cum_.begin();
    const auto e = kept_[static_cast<std::size_t>(k)];
    const auto T = lengths_[e];
    const auto t = g - (k > 0 ? kept_cum_[static_cast<std::size_t>(k) - 1] : 0);
    // Real steps [first, last] of the episode, right-aligned in the window.
    const std::int64_t first = kind == WindowKind::sequence ? t : std::max<std::int64_t>(0, t - K + 1);
    const std::int64_t last = kind == WindowKind::sequence ? std::min(T - 1, t + K - 1) : t;
    const std::int64_t n = last - first + 1;
    for (std::int64_t j = 0; j < n; ++j) idx[static_cast<std::size_t>(b * K + K - n + j)] = offsets_[e] + first + j;
  }
  const auto index = torch::tensor(idx);
  WindowBatch w;
  w.states = states_.index_select(0, index).view({batch, K, -1});
  w.actions = discrete_ ? actions_.index_select(0, index).view({batch, K})
                        : actions_.index_select(0, index).view({batch, K, -1});
  w.rtg = (rtg_.index_select(0, index) / rtg_scale).view({batch, K});
  w.timesteps = timesteps_.index_select(0, index).clamp_max(max_ep_len - 1).view({batch, K});
  w.valid = (index != pad).view({batch, K});
  return w;
}

double OfflineData::best_return() const { return *std::max_element(returns_.begin(), returns_.end()); }

std::int64_t OfflineData::longest_episode() const { return *std::max_element(lengths_.begin(), lengths_.end()); }

}  // namespace rlzoo::dt
