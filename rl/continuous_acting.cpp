#include "rl/continuous_acting.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/common/error.h"

namespace rlzoo {

namespace {
// SB3's OrnsteinUhlenbeckActionNoise defaults.
constexpr double kOuTheta = 0.15, kOuDt = 1e-2;
}  // namespace

ActionNoise ActionNoise::named(const std::string& name, double sigma) {
  if (name == "none") return {Kind::none, sigma};
  if (name == "normal") return {Kind::normal, sigma};
  if (name == "ornstein_uhlenbeck") return {Kind::ornstein_uhlenbeck, sigma};
  throw UserError(fmt::format("action noise '{}': expected none, normal or ornstein_uhlenbeck", name));
}

ContinuousActorPolicy::ContinuousActorPolicy(std::shared_ptr<BatchEvaluator> evaluator, BoxActionScaling scaling,
                                             ContinuousActing acting, ActionNoise noise,
                                             const ContinuousActingSchedule& schedule)
    : evaluator_(std::move(evaluator)),
      scaling_(std::move(scaling)),
      acting_(acting),
      noise_(noise),
      schedule_(schedule) {
  const auto floats = static_cast<std::size_t>((acting == ContinuousActing::squashed_gaussian ? 2 : 1) * scaling_.dim());
  RLZOO_CHECK(evaluator_->out_row_bytes() == floats * sizeof(float),
              "ContinuousActorPolicy: the evaluator's rows do not match the acting kind");
}

Rng& ContinuousActorPolicy::stream(std::int64_t row) {
  if (schedule_.shared_stream) return *schedule_.shared_stream;
  return rngs_[static_cast<std::size_t>(row)];
}

bool ContinuousActorPolicy::act(const ActBatch& b) {
  const std::int64_t d = scaling_.dim();
  if (first_env_ < 0) {  // the slice is fixed for the actor's life
    first_env_ = b.first_env;
    for (std::int64_t r = 0; r < b.rows && !schedule_.shared_stream; ++r)
      rngs_.emplace_back(derive_seed(schedule_.seed, static_cast<std::uint64_t>(first_env_ + r)));
  }
  RLZOO_CHECK(b.first_env == first_env_ && (schedule_.shared_stream || static_cast<std::size_t>(b.rows) == rngs_.size()),
              "ContinuousActorPolicy: an actor's env slice must not change");
  unit_.resize(static_cast<std::size_t>(b.rows * d));
  const bool random = schedule_.start_timesteps + b.step * schedule_.total_envs < schedule_.learning_starts;
  if (random) {
    for (std::int64_t r = 0; r < b.rows; ++r) {
      Rng& rng = stream(r);
      for (std::int64_t j = 0; j < d; ++j) unit_[static_cast<std::size_t>(r * d + j)] = static_cast<float>(rng.uniform(-1.0, 1.0));
    }
  } else {
    const std::int64_t floats = (acting_ == ContinuousActing::squashed_gaussian ? 2 : 1) * d;
    rows_.resize(static_cast<std::size_t>(b.rows * floats));
    if (!evaluator_->evaluate(b.obs, b.rows, std::as_writable_bytes(std::span(rows_)))) return false;
    for (std::int64_t r = 0; r < b.rows; ++r) {
      const float* row = rows_.data() + r * floats;
      float* out = unit_.data() + r * d;
      if (acting_ == ContinuousActing::deterministic) {
        std::copy_n(row, d, out);
        continue;
      }
      Rng& rng = stream(r);
      for (std::int64_t j = 0; j < d; ++j)
        out[j] = static_cast<float>(std::tanh(row[j] + std::exp(static_cast<double>(row[d + j])) * rng.normal()));
    }
  }
  if (noise_.kind != ActionNoise::Kind::none) {
    std::vector<double>& ou = noise_state_;
    if (noise_.kind == ActionNoise::Kind::ornstein_uhlenbeck) ou.resize(static_cast<std::size_t>(b.rows * d), 0.0);
    for (std::int64_t r = 0; r < b.rows; ++r) {
      Rng& rng = stream(r);
      const bool starts = !b.episode_starts.empty() && b.episode_starts[static_cast<std::size_t>(r)] != 0;
      for (std::int64_t j = 0; j < d; ++j) {
        const auto k = static_cast<std::size_t>(r * d + j);
        double n = noise_.sigma * rng.normal();
        if (noise_.kind == ActionNoise::Kind::ornstein_uhlenbeck) {
          if (starts) ou[k] = 0.0;
          ou[k] += -kOuTheta * ou[k] * kOuDt + std::sqrt(kOuDt) * n;
          n = ou[k];
        }
        unit_[k] = static_cast<float>(std::clamp(static_cast<double>(unit_[k]) + n, -1.0, 1.0));
      }
    }
  }
  scaling_.to_env(unit_, b.actions);
  return true;
}

}  // namespace rlzoo
