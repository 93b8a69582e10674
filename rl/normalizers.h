// Batch normalisers for vector envs (Stable-Baselines3's VecNormalize, inside the agent so
// that act() takes raw observations): running statistics updated while training, frozen in
// act()/evaluate(), saved with checkpoints.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "core/common/running_mean_std.h"
#include "core/torch/tensor.h"

namespace rlzoo {

// (obs - mean) / sqrt(var + eps), clipped to +-clip (0: no clipping). Float observations
// with any shape; statistics per element.
class ObservationNormalizer {
 public:
  ObservationNormalizer(std::int64_t numel, double clip = 10.0, double epsilon = 1e-8);
  // obs: [B, ...] float. Updates the statistics with the batch first when `update`.
  torch::Tensor normalize(const torch::Tensor& obs, bool update);
  // Folds a batch [B, ...] into the statistics without normalising it.
  void update(const torch::Tensor& obs);
  // update() for `rows` float32 rows in plain memory (numel floats each, contiguous): the same
  // statistics, without a tensor per batch.
  void update_rows(const float* obs, std::size_t rows);
  // normalize()'s arithmetic with given statistics (float64 [numel] mean and var).
  static torch::Tensor apply(const torch::Tensor& obs, const torch::Tensor& mean, const torch::Tensor& var, double clip,
                             double epsilon);
  nlohmann::json state() const { return rms_.state(); }
  void load_state(const nlohmann::json& s) { rms_.load_state(s); }
  // What normalize() computes with (the policy exporters rebuild it).
  const RunningMeanStd& statistics() const { return rms_; }
  double clip() const { return clip_; }
  double epsilon() const { return epsilon_; }

 private:
  RunningMeanStd rms_;
  double clip_, epsilon_;
  std::vector<double> scratch_;
};

// Rewards divided by the running std of each env's discounted return, clipped to +-clip.
class RewardNormalizer {
 public:
  RewardNormalizer(std::int64_t n_envs, double gamma, double clip = 10.0, double epsilon = 1e-8);
  // rewards, dones: [N]. Returns the scaled rewards [N] (float).
  torch::Tensor normalize(const torch::Tensor& rewards, const torch::Tensor& dones, bool update);
  // Scales without touching the statistics or the running returns (for bootstrapped values).
  double scale() const;
  nlohmann::json state() const;
  void load_state(const nlohmann::json& s);

 private:
  RunningMeanStd rms_;
  std::vector<double> returns_;
  double gamma_, clip_, epsilon_;
};

}  // namespace rlzoo
