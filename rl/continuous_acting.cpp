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
                                             const ContinuousActingSchedule& schedule, GsdeActing gsde)
    : evaluator_(std::move(evaluator)),
      scaling_(std::move(scaling)),
      acting_(acting),
      noise_(noise),
      schedule_(schedule),
      gsde_(gsde) {
  RLZOO_CHECK((acting == ContinuousActing::squashed_sde) == (gsde.latent > 0),
              "ContinuousActorPolicy: gSDE acting needs the latent size, and only it");
  RLZOO_CHECK(evaluator_->out_row_bytes() == static_cast<std::size_t>(row_floats()) * sizeof(float),
              "ContinuousActorPolicy: the evaluator's rows do not match the acting kind");
}

std::int64_t ContinuousActorPolicy::row_floats() const {
  const std::int64_t d = scaling_.dim();
  switch (acting_) {
    case ContinuousActing::squashed_gaussian: return 2 * d;
    case ContinuousActing::deterministic: return d;
    case ContinuousActing::squashed_sde: return d + gsde_.latent * d;
  }
  return d;
}

std::uint64_t ContinuousActorPolicy::begin_trajectory(std::uint64_t, const StopSource&) {
  if (acting_ == ContinuousActing::squashed_sde && !gsde_.per_episode)
    std::fill(sde_since_draw_.begin(), sde_since_draw_.end(), -1);  // a new round: new matrices
  return 0;
}

void ContinuousActorPolicy::out_sde(const ActBatch& b, std::int64_t r, const float* row, float* out) {
  const std::int64_t d = scaling_.dim(), cells = gsde_.latent * d;
  const auto rows = static_cast<std::size_t>(b.rows);
  if (sde_since_draw_.size() != rows) {
    sde_since_draw_.assign(rows, -1);
    sde_eps_.assign(rows * static_cast<std::size_t>(cells), 0.0);
  }
  auto& since = sde_since_draw_[static_cast<std::size_t>(r)];
  const bool episode_start = !b.episode_starts.empty() && b.episode_starts[static_cast<std::size_t>(r)] != 0;
  if (since < 0 || (gsde_.per_episode && episode_start) || (gsde_.sample_freq > 0 && since >= gsde_.sample_freq)) {
    Rng& rng = stream(r);
    for (std::int64_t k = 0; k < cells; ++k) sde_eps_[static_cast<std::size_t>(r * cells + k)] = rng.normal();
    since = 0;
  }
  ++since;
  const double* eps = sde_eps_.data() + r * cells;
  for (std::int64_t j = 0; j < d; ++j) {
    double u = row[j];
    for (std::int64_t l = 0; l < gsde_.latent; ++l) u += static_cast<double>(row[d + l * d + j]) * eps[l * d + j];
    out[j] = static_cast<float>(std::tanh(u));
  }
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
  const bool random = schedule_.start_timesteps + b.step * schedule_.total_envs < schedule_.learning_starts &&
                      !(acting_ == ContinuousActing::squashed_sde && gsde_.at_warmup);
  if (random) {
    for (std::int64_t r = 0; r < b.rows; ++r) {
      Rng& rng = stream(r);
      for (std::int64_t j = 0; j < d; ++j) unit_[static_cast<std::size_t>(r * d + j)] = static_cast<float>(rng.uniform(-1.0, 1.0));
    }
  } else {
    const std::int64_t floats = row_floats();
    rows_.resize(static_cast<std::size_t>(b.rows * floats));
    if (!evaluator_->evaluate(b.obs, b.rows, std::as_writable_bytes(std::span(rows_)))) return false;
    for (std::int64_t r = 0; r < b.rows; ++r) {
      const float* row = rows_.data() + r * floats;
      float* out = unit_.data() + r * d;
      if (acting_ == ContinuousActing::deterministic) {
        std::copy_n(row, d, out);
        continue;
      }
      if (acting_ == ContinuousActing::squashed_sde) {
        out_sde(b, r, row, out);
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
