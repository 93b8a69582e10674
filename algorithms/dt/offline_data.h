// An offline dataset in memory for sequence models: every step's normalised state, action and
// return-to-go in flat tensors, and random context windows drawn from them (notes §3.3).
//
//   OfflineData data(episodes, /*discrete=*/false);
//   data.keep_top(0.1);                             // %BC: the best episodes, 10% of the steps
//   auto b = data.windows(64, 20, 1000.0, 1000, rng);  // 64 windows of K = 20
//
// A window ends at a step drawn uniformly over the kept steps (so episodes are chosen in
// proportion to their length) and is left-padded to K; `valid` marks its real steps. Sequence
// windows (dt) start at the drawn step and run up to K steps towards the episode's end; history
// windows (bc) end at the drawn step. Returns-to-go run to the episode's end (γ = 1), whatever
// the window. Padded entries are 0 everywhere (the valid mask is authoritative).
#pragma once

#include <vector>

#include "core/common/rng.h"
#include "core/torch/tensor.h"

namespace rlzoo::dt {

// One episode: states [T, S] float, actions [T, A] float (continuous, already in [-1, 1]) or
// [T] int64 (discrete), rewards [T].
struct OfflineEpisode {
  torch::Tensor states, actions, rewards;
};

// Undiscounted returns-to-go: out[t] = rewards[t] + ... + rewards[T-1] (float64 accumulation).
torch::Tensor returns_to_go(const torch::Tensor& rewards);

struct WindowBatch {
  torch::Tensor states, actions, rtg, timesteps, valid;  // [B, K, S], [B, K, A] or [B, K], [B, K] x3
};

enum class WindowKind { sequence, history };

class OfflineData {
 public:
  OfflineData(const std::vector<OfflineEpisode>& episodes, bool discrete);

  // Keeps the highest-return episodes until they hold at least `fraction` of all steps (the DT
  // code's pct_traj: at least one episode). Statistics stay those of the whole dataset.
  void keep_top(double fraction);

  WindowBatch windows(std::int64_t batch, std::int64_t K, double rtg_scale, std::int64_t max_ep_len, Rng& rng,
                      WindowKind kind = WindowKind::sequence) const;

  // Dataset state statistics (all episodes); normalise(s) = (s - mean) / (std + 1e-6).
  const torch::Tensor& state_mean() const { return mean_; }
  const torch::Tensor& state_std() const { return std_; }
  std::int64_t episodes() const { return static_cast<std::int64_t>(lengths_.size()); }
  std::int64_t steps() const { return total_steps_; }
  std::int64_t kept_episodes() const { return static_cast<std::int64_t>(kept_.size()); }
  std::int64_t kept_steps() const { return kept_cum_.empty() ? 0 : kept_cum_.back(); }
  const std::vector<double>& episode_returns() const { return returns_; }
  double best_return() const;
  std::int64_t longest_episode() const;

 private:
  bool discrete_;
  torch::Tensor states_, actions_, rtg_, timesteps_;  // flat over all steps, plus one zero pad row at the end
  torch::Tensor mean_, std_;
  std::vector<std::int64_t> offsets_, lengths_;
  std::vector<double> returns_;
  std::int64_t total_steps_ = 0;
  std::vector<std::int64_t> kept_;      // episode ids sampled from
  std::vector<std::int64_t> kept_cum_;  // cumulative lengths of the kept episodes
};

}  // namespace rlzoo::dt
