#include "algorithms/ppo/ppo_actor.h"

#include <algorithm>
#include <cstring>

namespace rlzoo {

PpoActorPolicy::PpoActorPolicy(std::shared_ptr<BatchEvaluator> evaluator, const ModuleParameterStore& store,
                               const Space& action_space, std::size_t mask_size, bool wait_for_rounds,
                               std::size_t state_floats)
    : evaluator_(std::move(evaluator)),
      client_(store),
      action_space_(action_space),
      action_floats_(action_space.is_discrete() ? 1 : static_cast<std::size_t>(action_space.numel())),
      mask_size_(mask_size),
      wait_for_rounds_(wait_for_rounds),
      state_floats_(state_floats) {
  RLZOO_CHECK(evaluator_->out_row_bytes() == (action_floats_ + 2 + state_floats_) * sizeof(float),
              "PpoActorPolicy: the evaluator must give [action, log_prob, value(, next state)] rows");
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
  return client_.version();
}

bool PpoActorPolicy::act(const ActBatch& b) {
  const auto rows = static_cast<std::size_t>(b.rows);
  const std::size_t obs_bytes = b.obs.size() / rows;
  const std::size_t k = num_extras(), out_floats = action_floats_ + 2 + state_floats_;
  ConstBytes in = b.obs;
  if (mask_size_ > 0 || state_floats_ > 0) {  // rows of observation (+ mask) (+ start and state)
    if (state_.size() != rows * state_floats_) state_.assign(rows * state_floats_, 0.0f);
    const std::size_t fb = state_floats_ ? (1 + state_floats_) * sizeof(float) : 0;
    const std::size_t row_bytes = obs_bytes + mask_size_ + fb;
    in_.resize(rows * row_bytes);
    for (std::size_t r = 0; r < rows; ++r) {
      std::byte* row = in_.data() + r * row_bytes;
      std::memcpy(row, b.obs.data() + r * obs_bytes, obs_bytes);
      if (mask_size_) std::memcpy(row + obs_bytes, b.masks.data() + r * mask_size_, mask_size_);
      if (!fb) continue;
      const float start = b.episode_starts.empty() ? 0.0f : static_cast<float>(b.episode_starts[r]);
      std::memcpy(row + obs_bytes + mask_size_, &start, sizeof(float));
      std::memcpy(row + obs_bytes + mask_size_ + sizeof(float), state_.data() + r * state_floats_,
                  state_floats_ * sizeof(float));
      // The trajectory keeps the start flag and the state this step began from.
      float* extras = b.extras.data() + r * k + action_floats_ + 2;
      extras[0] = start;
      std::memcpy(extras + 1, state_.data() + r * state_floats_, state_floats_ * sizeof(float));
    }
    in = ConstBytes(in_);
  }
  if (state_floats_ == 0) {
    if (!evaluator_->evaluate(in, b.rows, std::as_writable_bytes(b.extras))) return false;
  } else {
    out_.resize(rows * out_floats);
    if (!evaluator_->evaluate(in, b.rows, std::as_writable_bytes(std::span<float>(out_)))) return false;
    for (std::size_t r = 0; r < rows; ++r) {
      const float* y = out_.data() + r * out_floats;
      std::copy_n(y, action_floats_ + 2, b.extras.data() + r * k);
      std::copy_n(y + action_floats_ + 2, state_floats_, state_.data() + r * state_floats_);
    }
  }
  for (std::size_t r = 0; r < rows; ++r) {
    const float* y = b.extras.data() + r * k;
    if (action_space_.is_discrete()) {
      as_span<std::int64_t>(b.actions)[r] = static_cast<std::int64_t>(y[0]);
    } else {
      auto a = as_span<float>(b.actions);
      for (std::size_t j = 0; j < action_floats_; ++j)
        a[r * action_floats_ + j] = std::clamp(y[j], low_[j], high_[j]);
    }
  }
  return true;
}

}  // namespace rlzoo
