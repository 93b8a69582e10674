#include "core/common/running_mean_std.h"

#include <fmt/format.h>

#include "core/common/error.h"

namespace rlzoo {

RunningMeanStd::RunningMeanStd(std::size_t dim, double initial_count)
    : mean_(dim, 0.0), var_(dim, 1.0), count_(initial_count), batch_mean_(dim), batch_var_(dim) {}

void RunningMeanStd::update(const double* x, std::size_t batch) {
  if (batch == 0) return;
  const std::size_t d = dim();
  for (std::size_t j = 0; j < d; ++j) {
    double m = 0;
    for (std::size_t i = 0; i < batch; ++i) m += x[i * d + j];
    m /= static_cast<double>(batch);
    double v = 0;
    for (std::size_t i = 0; i < batch; ++i) v += (x[i * d + j] - m) * (x[i * d + j] - m);
    batch_mean_[j] = m;
    batch_var_[j] = v / static_cast<double>(batch);  // population variance, as numpy's var()
  }
  const double bc = static_cast<double>(batch);
  const double total = count_ + bc;
  for (std::size_t j = 0; j < d; ++j) {
    const double delta = batch_mean_[j] - mean_[j];
    const double m2 = var_[j] * count_ + batch_var_[j] * bc + delta * delta * count_ * bc / total;
    mean_[j] += delta * bc / total;
    var_[j] = m2 / total;
  }
  count_ = total;
}

nlohmann::json RunningMeanStd::state() const { return {{"mean", mean_}, {"var", var_}, {"count", count_}}; }

void RunningMeanStd::load_state(const nlohmann::json& s) {
  try {
    auto mean = s.at("mean").get<std::vector<double>>();
    auto var = s.at("var").get<std::vector<double>>();
    const double count = s.at("count").get<double>();
    if (mean.size() != dim() || var.size() != dim())
      throw UserError(fmt::format("running statistics have dimension {}, expected {}", mean.size(), dim()));
    mean_ = std::move(mean);
    var_ = std::move(var);
    count_ = count;
  } catch (const nlohmann::json::exception& e) {
    throw UserError(std::string("malformed running statistics: ") + e.what());
  }
}

}  // namespace rlzoo
