#include "algorithms/ppo/ppo_actor.h"

#include <algorithm>
#include <cstring>
#include <nlohmann/json.hpp>

namespace rlzoo {

namespace {

std::vector<double> doubles(const torch::Tensor& t) {
  const auto c = t.to(torch::kFloat64).contiguous();
  return {c.data_ptr<double>(), c.data_ptr<double>() + c.numel()};
}

}  // namespace

PpoActorPolicy::PpoActorPolicy(std::shared_ptr<BatchEvaluator> evaluator, const ModuleParameterStore& store,
                               const Space& action_space, const PpoActorLayout& layout, bool wait_for_rounds)
    : evaluator_(std::move(evaluator)),
      client_(store),
      action_space_(action_space),
      action_floats_(action_space.is_discrete() ? 1 : static_cast<std::size_t>(action_space.numel())),
      layout_(layout),
      wait_for_rounds_(wait_for_rounds) {
  RLZOO_CHECK(evaluator_->out_row_bytes() == (action_floats_ + 2 + layout_.state_floats) * sizeof(float),
              "PpoActorPolicy: the evaluator must give [action, log_prob, value(, next state)] rows");
  if (layout_.normalized_obs > 0) obs_norm_.emplace(layout_.normalized_obs, layout_.clip_obs, layout_.obs_epsilon);
  if (!action_space.is_discrete())
    for (std::int64_t i = 0; i < action_space.numel(); ++i) {
      low_.push_back(static_cast<float>(action_space.low()[static_cast<std::size_t>(i)]));
      high_.push_back(static_cast<float>(action_space.high()[static_cast<std::size_t>(i)]));
    }
}

std::uint64_t PpoActorPolicy::begin_trajectory(std::uint64_t sequence, const StopSource& stop) {
  if (wait_for_rounds_)
    client_.wait_for(sequence + 1, stop);
  else
    client_.refresh();
  if (obs_norm_ && client_.snapshot()) {  // the statistics published with these parameters
    const auto& t = client_.snapshot()->tensors;
    RLZOO_CHECK(t.size() >= 3, "PpoActorPolicy: the snapshot has no observation statistics");
    obs_norm_->load_state({{"mean", doubles(t[t.size() - 3])},
                           {"var", doubles(t[t.size() - 2])},
                           {"count", t.back().item<double>()}});
  }
  return client_.version();
}

bool PpoActorPolicy::act(const ActBatch& b) {
  const auto rows = static_cast<std::size_t>(b.rows);
  const std::size_t obs_bytes = b.obs.size() / rows;
  const std::size_t k = num_extras(), S = layout_.state_floats, M = layout_.mask_size;
  const auto O = static_cast<std::size_t>(layout_.normalized_obs);
  const std::size_t out_floats = action_floats_ + 2 + S;
  const std::byte* obs = b.obs.data();
  if (obs_norm_) {  // fold this step in, then normalise; the rows keep their float32 or float64 layout
    const std::size_t element = obs_bytes / O;
    RLZOO_CHECK(obs_bytes == O * element && (element == 4 || element == 8),
                "PpoActorPolicy: normalize_obs needs float32 or float64 observations");
    const auto dtype = element == 4 ? torch::kFloat32 : torch::kFloat64;
    const auto x = torch::from_blob(const_cast<std::byte*>(b.obs.data()), {b.rows, static_cast<std::int64_t>(O)}, dtype);
    const auto y = obs_norm_->normalize(x, /*update=*/true).contiguous();  // float32, as the learner trains on
    const float* f = y.data_ptr<float>();
    for (std::size_t r = 0; r < rows; ++r) std::copy_n(f + r * O, O, b.extras.data() + r * k + (k - O));
    const auto as_space = y.to(dtype).contiguous();
    const auto* bytes = static_cast<const std::byte*>(as_space.data_ptr());
    normalized_.assign(bytes, bytes + rows * obs_bytes);
    obs = normalized_.data();
  }
  ConstBytes in(obs, b.obs.size());
  if (M > 0 || S > 0) {  // rows of observation (+ mask) (+ start and state)
    if (state_.size() != rows * S) state_.assign(rows * S, 0.0f);
    const std::size_t fb = S ? (1 + S) * sizeof(float) : 0;
    const std::size_t row_bytes = obs_bytes + M + fb;
    in_.resize(rows * row_bytes);
    for (std::size_t r = 0; r < rows; ++r) {
      std::byte* row = in_.data() + r * row_bytes;
      std::memcpy(row, obs + r * obs_bytes, obs_bytes);
      if (M) std::memcpy(row + obs_bytes, b.masks.data() + r * M, M);
      if (!fb) continue;
      const float start = b.episode_starts.empty() ? 0.0f : static_cast<float>(b.episode_starts[r]);
      std::memcpy(row + obs_bytes + M, &start, sizeof(float));
      std::memcpy(row + obs_bytes + M + sizeof(float), state_.data() + r * S, S * sizeof(float));
      // The trajectory keeps the start flag and the state this step began from.
      float* extras = b.extras.data() + r * k + action_floats_ + 2;
      extras[0] = start;
      std::copy_n(state_.data() + r * S, S, extras + 1);
    }
    in = ConstBytes(in_);
  }
  out_.resize(rows * out_floats);
  if (!evaluator_->evaluate(in, b.rows, std::as_writable_bytes(std::span<float>(out_)))) return false;
  for (std::size_t r = 0; r < rows; ++r) {
    const float* y = out_.data() + r * out_floats;
    std::copy_n(y, action_floats_ + 2, b.extras.data() + r * k);
    if (S) std::copy_n(y + action_floats_ + 2, S, state_.data() + r * S);
    if (action_space_.is_discrete()) {
      as_span<std::int64_t>(b.actions)[r] = static_cast<std::int64_t>(y[0]);
    } else {
      auto a = as_span<float>(b.actions);
      for (std::size_t j = 0; j < action_floats_; ++j) a[r * action_floats_ + j] = std::clamp(y[j], low_[j], high_[j]);
    }
  }
  return true;
}

}  // namespace rlzoo
