#include "rl/normalizers.h"

#include <algorithm>
#include <cmath>

#include "core/common/error.h"

namespace rlzoo {

ObservationNormalizer::ObservationNormalizer(std::int64_t numel, double clip, double epsilon)
    : rms_(static_cast<std::size_t>(numel)), clip_(clip), epsilon_(epsilon) {
  if (!(epsilon > 0)) throw UserError("observation normaliser: epsilon must be > 0");
}

namespace {

// Contiguous float32 or float64 observations on the CPU: normalised in plain loops, with the
// arithmetic of apply() in the same order (double, then float), so the results are the same bits.
bool plain_rows(const torch::Tensor& obs) {
  return obs.device().is_cpu() && (obs.scalar_type() == torch::kFloat32 || obs.scalar_type() == torch::kFloat64) &&
         obs.is_contiguous() && obs.dim() >= 1 && !obs.requires_grad();
}

double element(const torch::Tensor& obs, std::size_t i) {
  return obs.scalar_type() == torch::kFloat32 ? static_cast<double>(obs.data_ptr<float>()[i]) : obs.data_ptr<double>()[i];
}

}  // namespace

torch::Tensor ObservationNormalizer::normalize(const torch::Tensor& obs, bool update) {
  if (!plain_rows(obs)) {
    if (update) this->update(obs);
    return apply(obs, torch::tensor(rms_.mean(), torch::kFloat64), torch::tensor(rms_.var(), torch::kFloat64), clip_,
                 epsilon_);
  }
  const auto rows = static_cast<std::size_t>(obs.size(0)), dim = rms_.dim();
  RLZOO_CHECK(static_cast<std::size_t>(obs.numel()) == rows * dim, "observation size changed");
  scratch_.resize(rows * dim);
  for (std::size_t i = 0; i < rows * dim; ++i) scratch_[i] = element(obs, i);
  if (update) rms_.update(scratch_.data(), rows);
  auto out = torch::empty(obs.sizes(), torch::kFloat32);
  float* o = out.data_ptr<float>();
  const auto& mean = rms_.mean();
  const auto& var = rms_.var();
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t j = 0; j < dim; ++j) {
      double v = (scratch_[r * dim + j] - mean[j]) / std::sqrt(var[j] + epsilon_);
      if (clip_ > 0) v = std::clamp(v, -clip_, clip_);
      o[r * dim + j] = static_cast<float>(v);
    }
  return out;
}

void ObservationNormalizer::update(const torch::Tensor& obs) {
  const auto flat = obs.reshape({obs.size(0), -1}).to(torch::kFloat64).contiguous();
  RLZOO_CHECK(flat.size(1) == static_cast<std::int64_t>(rms_.dim()), "observation size changed");
  rms_.update(flat.data_ptr<double>(), static_cast<std::size_t>(flat.size(0)));
}

void ObservationNormalizer::update_rows(const float* obs, std::size_t rows) {
  scratch_.assign(obs, obs + rows * rms_.dim());  // to double, as update()'s to(kFloat64)
  rms_.update(scratch_.data(), rows);
}

torch::Tensor ObservationNormalizer::apply(const torch::Tensor& obs, const torch::Tensor& mean, const torch::Tensor& var,
                                           double clip, double epsilon) {
  const auto flat = obs.reshape({obs.size(0), -1}).to(torch::kFloat64);
  RLZOO_CHECK(flat.size(1) == mean.numel(), "observation size changed");
  auto out = (flat - mean) / torch::sqrt(var + epsilon);
  if (clip > 0) out = out.clamp(-clip, clip);
  return out.to(torch::kFloat32).reshape(obs.sizes());
}

RewardNormalizer::RewardNormalizer(std::int64_t n_envs, double gamma, double clip, double epsilon)
    : rms_(1), returns_(static_cast<std::size_t>(n_envs), 0.0), gamma_(gamma), clip_(clip), epsilon_(epsilon) {}

double RewardNormalizer::scale() const { return 1.0 / std::sqrt(rms_.var()[0] + epsilon_); }

torch::Tensor RewardNormalizer::normalize(const torch::Tensor& rewards, const torch::Tensor& dones, bool update) {
  const auto r = rewards.to(torch::kFloat64).contiguous();
  const auto d = dones.to(torch::kFloat64).contiguous();
  const double* rp = r.data_ptr<double>();
  const double* dp = d.data_ptr<double>();
  if (update) {
    for (std::size_t i = 0; i < returns_.size(); ++i) returns_[i] = returns_[i] * gamma_ + rp[i];
    rms_.update(returns_.data(), returns_.size());
    for (std::size_t i = 0; i < returns_.size(); ++i)
      if (dp[i] != 0) returns_[i] = 0.0;
  }
  auto out = r * scale();
  if (clip_ > 0) out = out.clamp(-clip_, clip_);
  return out.to(torch::kFloat32);
}

nlohmann::json RewardNormalizer::state() const { return {{"rms", rms_.state()}, {"returns", returns_}}; }

void RewardNormalizer::load_state(const nlohmann::json& s) {
  rms_.load_state(s.at("rms"));
  auto r = s.at("returns").get<std::vector<double>>();
  if (r.size() != returns_.size()) throw UserError("reward normaliser state is for another number of envs");
  returns_ = std::move(r);
}

}  // namespace rlzoo
