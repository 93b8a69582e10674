// Running mean and variance over a stream of vectors (the parallel/Chan update that
// Gymnasium's and Stable-Baselines3's RunningMeanStd use). Count starts at a small epsilon so
// the first update dominates the initial (mean 0, var 1). Used by the normalisation wrappers
// and saved with checkpoints.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

namespace rlzoo {

class RunningMeanStd {
 public:
  explicit RunningMeanStd(std::size_t dim = 1, double initial_count = 1e-4);

  std::size_t dim() const { return mean_.size(); }
  // Folds in a batch of `batch` vectors stored row-major in x (batch * dim() values).
  void update(const double* x, std::size_t batch);
  void update(double x) { update(&x, 1); }

  const std::vector<double>& mean() const { return mean_; }
  const std::vector<double>& var() const { return var_; }
  double count() const { return count_; }

  nlohmann::json state() const;
  // Throws UserError when the state is malformed or of another dimension.
  void load_state(const nlohmann::json& s);

 private:
  std::vector<double> mean_, var_;
  double count_;
  std::vector<double> batch_mean_, batch_var_;  // scratch, so update() does not allocate
};

}  // namespace rlzoo
