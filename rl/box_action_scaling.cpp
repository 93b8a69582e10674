#include "rl/box_action_scaling.h"

#include <fmt/format.h>

#include "core/common/error.h"

namespace rlzoo {

BoxActionScaling::BoxActionScaling(const Space& action_space, const std::string& who) : space_(action_space) {
  if (!action_space.is_box() || !(action_space.dtype() == DType::Float32 || action_space.dtype() == DType::Float64) ||
      !action_space.is_bounded())
    throw UserError(fmt::format("{} needs a float Box action space with finite bounds, got {}", who,
                                action_space.describe()));
  low_ = action_space.low();
  high_ = action_space.high();
}

void BoxActionScaling::to_env(std::span<const float> unit, Bytes out) const {
  const std::size_t d = low_.size();
  RLZOO_CHECK(unit.size() % d == 0 && out.size() == unit.size() / d * space_.byte_size(),
              "BoxActionScaling: row sizes do not match");
  for (std::size_t i = 0; i < unit.size(); ++i) {
    const std::size_t j = i % d;
    const double v = low_[j] + (static_cast<double>(unit[i]) + 1.0) * 0.5 * (high_[j] - low_[j]);
    if (space_.dtype() == DType::Float32)
      as_span<float>(out)[i] = static_cast<float>(v);
    else
      as_span<double>(out)[i] = v;
  }
}

torch::Tensor BoxActionScaling::to_unit(const torch::Tensor& env_actions) const {
  if (env_actions.scalar_type() == torch::kFloat32 && env_actions.device().is_cpu() && env_actions.is_contiguous() &&
      env_actions.numel() == env_actions.size(0) * dim()) {
    // The same float64 arithmetic as the operations below, in one loop (every gradient step
    // converts its batch).
    auto out = torch::empty({env_actions.size(0), dim()}, torch::kFloat32);
    const float* a = env_actions.data_ptr<float>();
    float* u = out.data_ptr<float>();
    const std::size_t d = low_.size();
    for (std::int64_t i = 0; i < out.numel(); ++i) {
      const std::size_t j = static_cast<std::size_t>(i) % d;
      u[i] = static_cast<float>(2.0 * (static_cast<double>(a[i]) - low_[j]) / (high_[j] - low_[j]) - 1.0);
    }
    return out;
  }
  const auto a = env_actions.to(torch::kFloat64).reshape({env_actions.size(0), dim()});
  const auto low = torch::tensor(low_, torch::kFloat64).to(a.device());
  const auto high = torch::tensor(high_, torch::kFloat64).to(a.device());
  return (2.0 * (a - low) / (high - low) - 1.0).to(torch::kFloat32);
}

torch::Tensor BoxActionScaling::to_env(const torch::Tensor& unit) const {
  const auto u = unit.to(torch::kFloat64);
  const auto low = torch::tensor(low_, torch::kFloat64).to(u.device());
  const auto high = torch::tensor(high_, torch::kFloat64).to(u.device());
  std::vector<std::int64_t> shape{unit.size(0)};
  for (auto s : space_.shape()) shape.push_back(s);
  return (low + (u + 1.0) * 0.5 * (high - low)).to(torch::kFloat32).reshape(shape);
}

}  // namespace rlzoo
