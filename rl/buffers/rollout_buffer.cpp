#include "rl/buffers/rollout_buffer.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "core/common/error.h"

namespace rlzoo {

RolloutBuffer::RolloutBuffer(std::int64_t n_steps, std::int64_t n_envs) : n_steps_(n_steps), n_envs_(n_envs) {
  if (n_steps < 1 || n_envs < 1)
    throw UserError(fmt::format("rollout buffer needs n_steps >= 1 and n_envs >= 1, got {} and {}", n_steps, n_envs));
  const auto f = torch::TensorOptions().dtype(torch::kFloat32);
  rewards_ = torch::zeros({n_steps, n_envs}, f);
  dones_ = torch::zeros({n_steps, n_envs}, f);
  values_ = torch::zeros({n_steps, n_envs}, f);
  log_probs_ = torch::zeros({n_steps, n_envs}, f);
  advantages_ = torch::zeros({n_steps, n_envs}, f);
  returns_ = torch::zeros({n_steps, n_envs}, f);
}

namespace {
torch::Tensor storage_for(const torch::Tensor& row, std::int64_t n_steps) {
  std::vector<std::int64_t> sizes{n_steps};
  for (auto d : row.sizes()) sizes.push_back(d);
  return torch::zeros(sizes, row.options().device(torch::kCPU));
}

torch::Tensor on(const torch::Tensor& t, const torch::Device& device) { return t.defined() ? t.to(device) : t; }

// The rows idx[0..count) of a field's storage [n_steps, n_envs, ...] (contiguous, on the CPU)
// seen as [n_steps * n_envs, ...]: what reshape and index_select give, by plain copies. PPO
// takes a minibatch of every field per epoch, and on CartPole's 256 rows those LibTorch
// operations cost ~5% of an update.
torch::Tensor gather_rows(const torch::Tensor& storage, std::int64_t n_envs, const std::int64_t* idx,
                          std::int64_t count) {
  RLZOO_CHECK(storage.device().is_cpu() && storage.is_contiguous(), "rollout storage must be contiguous on the CPU");
  RLZOO_CHECK(storage.dim() >= 2 && storage.size(1) == n_envs, "rollout storage must be [n_steps, n_envs, ...]");
  const std::int64_t rows = storage.size(0) * storage.size(1);
  std::vector<std::int64_t> sizes{count};
  for (std::int64_t k = 2; k < storage.dim(); ++k) sizes.push_back(storage.size(k));
  auto out = torch::empty(sizes, storage.options());
  const auto row_bytes = static_cast<std::size_t>(rows > 0 ? storage.numel() / rows : 0) * storage.element_size();
  const auto* from = static_cast<const char*>(storage.data_ptr());
  auto* to = static_cast<char*>(out.data_ptr());
  for (std::int64_t i = 0; i < count; ++i) {
    RLZOO_CHECK(idx[i] >= 0 && idx[i] < rows, "minibatch index out of range");
    std::memcpy(to + static_cast<std::size_t>(i) * row_bytes, from + static_cast<std::size_t>(idx[i]) * row_bytes,
                row_bytes);
  }
  return out;
}
}  // namespace

RolloutBuffer::Batch RolloutBuffer::Batch::to(const torch::Device& device) const {
  Batch b;
  for (const auto& o : obs) b.obs.push_back(on(o, device));
  b.actions = on(actions, device);
  b.old_values = on(old_values, device);
  b.old_log_probs = on(old_log_probs, device);
  b.advantages = on(advantages, device);
  b.returns = on(returns, device);
  b.action_masks = on(action_masks, device);
  b.episode_starts = on(episode_starts, device);
  b.initial_state = on(initial_state, device);
  return b;
}

namespace {

// A CPU row of at most 2 dimensions with any strides, read as rows x cols.
struct RowView {
  std::int64_t rows = 1, cols = 1, row_stride = 0, col_stride = 0;
};

// dst[r * cols + c] = src[r * row_stride + c * col_stride], converted as copy_ converts
// (static_cast).
template <class To, class From>
void convert_row(To* dst, const From* src, const RowView& v) {
  for (std::int64_t r = 0; r < v.rows; ++r)
    for (std::int64_t c = 0; c < v.cols; ++c) *dst++ = static_cast<To>(src[r * v.row_stride + c * v.col_stride]);
}

// A float32 row from a CPU row of float32, float64, bool, uint8 or int64 (strided columns of
// the policy's output and slices of normalised observations among them). False for any other
// dtype.
bool convert_float_row(float* dst, const torch::Tensor& src, const RowView& v) {
  switch (src.scalar_type()) {
    case torch::kFloat32: convert_row(dst, src.data_ptr<float>(), v); return true;
    case torch::kFloat64: convert_row(dst, src.data_ptr<double>(), v); return true;
    case torch::kBool: convert_row(dst, src.data_ptr<bool>(), v); return true;
    case torch::kUInt8: convert_row(dst, src.data_ptr<std::uint8_t>(), v); return true;
    case torch::kInt64: convert_row(dst, src.data_ptr<std::int64_t>(), v); return true;
    default: return false;
  }
}

// storage[pos] = src. A step of a few envs is too small for select and copy_ to pay (~4.5 k
// instructions a row under callgrind): a memcpy where both are contiguous CPU tensors of one
// dtype; a plain loop into a float32 row from a CPU row of at most 2 dimensions of the row's
// own shape (any strides, any of the dtypes above); else those operations (which also refuse
// what they cannot take).
void copy_row(torch::Tensor& storage, std::int64_t pos, const torch::Tensor& src) {
  const std::int64_t row = storage.numel() / storage.size(0);
  if (!storage.device().is_cpu() || !src.device().is_cpu() || !storage.is_contiguous() || src.numel() != row) {
    storage[pos].copy_(src);
    return;
  }
  if (src.is_contiguous() && storage.scalar_type() == src.scalar_type()) {
    const auto bytes = static_cast<std::size_t>(row) * storage.element_size();
    std::memcpy(static_cast<std::byte*>(storage.data_ptr()) + static_cast<std::size_t>(pos) * bytes, src.data_ptr(),
                bytes);
    return;
  }
  if (storage.scalar_type() == torch::kFloat32 && src.dim() <= 2 && src.sizes() == storage.sizes().slice(1)) {
    RowView v;
    if (src.dim() == 1) {
      v.cols = src.size(0);
      v.col_stride = src.stride(0);
    } else if (src.dim() == 2) {
      v = {src.size(0), src.size(1), src.stride(0), src.stride(1)};
    }
    if (convert_float_row(storage.data_ptr<float>() + pos * row, src, v)) return;
  }
  storage[pos].copy_(src);
}

}  // namespace

void RolloutBuffer::add(const std::vector<torch::Tensor>& obs, const torch::Tensor& actions,
                        const torch::Tensor& rewards, const torch::Tensor& dones, const torch::Tensor& values,
                        const torch::Tensor& log_probs, const torch::Tensor& action_masks,
                        const torch::Tensor& episode_starts) {
  RLZOO_CHECK(pos_ < n_steps_, "rollout buffer is full");
  if (obs_.empty()) {
    for (const auto& o : obs) obs_.push_back(storage_for(o, n_steps_));
    actions_ = storage_for(actions, n_steps_);
    if (action_masks.defined()) masks_ = storage_for(action_masks, n_steps_);
    if (episode_starts.defined()) starts_ = torch::zeros({n_steps_, n_envs_}, torch::kBool);
  }
  RLZOO_CHECK(obs.size() == obs_.size());
  for (std::size_t i = 0; i < obs.size(); ++i) copy_row(obs_[i], pos_, obs[i]);
  copy_row(actions_, pos_, actions);
  copy_row(rewards_, pos_, rewards);
  copy_row(dones_, pos_, dones);
  copy_row(values_, pos_, values);
  copy_row(log_probs_, pos_, log_probs);
  if (masks_.defined()) copy_row(masks_, pos_, action_masks);
  if (starts_.defined()) copy_row(starts_, pos_, episode_starts);
  ++pos_;
}

void RolloutBuffer::add_rows(FloatRows obs, c10::IntArrayRef obs_shape, FloatRows actions,
                             c10::IntArrayRef action_shape, bool discrete_actions, const float* rewards,
                             const float* dones, FloatRows values, FloatRows log_probs) {
  RLZOO_CHECK(pos_ < n_steps_, "rollout buffer is full");
  auto with_steps = [&](c10::IntArrayRef shape) {
    std::vector<std::int64_t> sizes{n_steps_, n_envs_};
    sizes.insert(sizes.end(), shape.begin(), shape.end());
    return sizes;
  };
  const auto action_type = discrete_actions ? torch::kInt64 : torch::kFloat32;
  if (obs_.empty()) {
    obs_.push_back(torch::zeros(with_steps(obs_shape), torch::kFloat32));
    actions_ = torch::zeros(with_steps(action_shape), action_type);
  }
  RLZOO_CHECK(obs_.size() == 1 && obs_[0].scalar_type() == torch::kFloat32 &&
                  obs_[0].sizes() == c10::IntArrayRef(with_steps(obs_shape)) && actions_.scalar_type() == action_type &&
                  actions_.sizes() == c10::IntArrayRef(with_steps(action_shape)) && !masks_.defined() &&
                  !starts_.defined(),
              "RolloutBuffer::add_rows: the rows do not match the buffer's storage");
  const std::int64_t n = n_envs_, o = obs_[0].numel() / (n_steps_ * n), a = actions_.numel() / (n_steps_ * n);
  auto copy = [n](float* dst, std::int64_t cols, FloatRows src) {
    for (std::int64_t r = 0; r < n; ++r)
      for (std::int64_t c = 0; c < cols; ++c) dst[r * cols + c] = src.data[r * src.row_stride + c];
  };
  copy(obs_[0].data_ptr<float>() + pos_ * n * o, o, obs);
  if (discrete_actions) {
    std::int64_t* dst = actions_.data_ptr<std::int64_t>() + pos_ * n * a;
    for (std::int64_t r = 0; r < n; ++r)
      for (std::int64_t c = 0; c < a; ++c) dst[r * a + c] = static_cast<std::int64_t>(actions.data[r * actions.row_stride + c]);
  } else {
    copy(actions_.data_ptr<float>() + pos_ * n * a, a, actions);
  }
  std::copy_n(rewards, n, rewards_.data_ptr<float>() + pos_ * n);
  std::copy_n(dones, n, dones_.data_ptr<float>() + pos_ * n);
  copy(values_.data_ptr<float>() + pos_ * n, 1, values);
  copy(log_probs_.data_ptr<float>() + pos_ * n, 1, log_probs);
  ++pos_;
}

void RolloutBuffer::compute_returns_and_advantages(const torch::Tensor& last_values, double gamma, double gae_lambda) {
  RLZOO_CHECK(full(), "GAE needs a full rollout");
  // Plain loops over [T, N] accessors: T*N is small and this avoids ~T tiny tensor ops.
  auto r = rewards_.accessor<float, 2>();
  auto d = dones_.accessor<float, 2>();
  auto v = values_.accessor<float, 2>();
  auto adv = advantages_.accessor<float, 2>();
  auto last = last_values.to(torch::kCPU, torch::kFloat32).contiguous();
  const float* lv = last.data_ptr<float>();
  for (std::int64_t i = 0; i < n_envs_; ++i) {
    double gae = 0.0;
    for (std::int64_t t = n_steps_ - 1; t >= 0; --t) {
      const double next_value = t + 1 < n_steps_ ? v[t + 1][i] : lv[i];
      const double not_done = 1.0 - d[t][i];
      const double delta = r[t][i] + gamma * next_value * not_done - v[t][i];
      gae = delta + gamma * gae_lambda * not_done * gae;
      adv[t][i] = static_cast<float>(gae);
    }
  }
  returns_ = advantages_ + values_;
}

std::vector<RolloutBuffer::Batch> RolloutBuffer::minibatches(std::int64_t batch_size) const {
  const std::int64_t total = n_steps_ * n_envs_;
  RLZOO_CHECK(batch_size >= 1);
  const auto perm = torch::randperm(total, torch::TensorOptions().dtype(torch::kInt64));
  std::vector<Batch> out;
  for (std::int64_t start = 0; start < total; start += batch_size) {
    const std::int64_t count = std::min(total, start + batch_size) - start;
    const std::int64_t* idx = perm.data_ptr<std::int64_t>() + start;
    Batch b;
    for (const auto& o : obs_) b.obs.push_back(gather_rows(o, n_envs_, idx, count));
    b.actions = gather_rows(actions_, n_envs_, idx, count);
    b.old_values = gather_rows(values_, n_envs_, idx, count);
    b.old_log_probs = gather_rows(log_probs_, n_envs_, idx, count);
    b.advantages = gather_rows(advantages_, n_envs_, idx, count);
    b.returns = gather_rows(returns_, n_envs_, idx, count);
    if (masks_.defined()) b.action_masks = gather_rows(masks_, n_envs_, idx, count);
    out.push_back(std::move(b));
  }
  return out;
}

std::vector<RolloutBuffer::Batch> RolloutBuffer::sequence_minibatches(std::int64_t envs_per_batch) const {
  RLZOO_CHECK(envs_per_batch >= 1);
  RLZOO_CHECK(starts_.defined() && initial_state_.defined(),
              "sequence minibatches need the episode starts and the initial state of the rollout");
  RLZOO_CHECK(initial_state_.dim() >= 3 && initial_state_.size(2) == n_envs_,
              "the initial state must hold the envs at dimension 2");
  const auto perm = torch::randperm(n_envs_, torch::TensorOptions().dtype(torch::kInt64));
  // [T, N, ...] -> the envs idx, flattened time-major to [T * E, ...].
  auto pick = [&](const torch::Tensor& t, const torch::Tensor& idx) {
    std::vector<std::int64_t> sizes{n_steps_ * idx.size(0)};
    for (std::int64_t k = 2; k < t.dim(); ++k) sizes.push_back(t.size(k));
    return t.index_select(1, idx).reshape(sizes);
  };
  std::vector<Batch> out;
  for (std::int64_t start = 0; start < n_envs_; start += envs_per_batch) {
    const auto idx = perm.slice(0, start, std::min(n_envs_, start + envs_per_batch));
    Batch b;
    for (const auto& o : obs_) b.obs.push_back(pick(o, idx));
    b.actions = pick(actions_, idx);
    b.old_values = pick(values_, idx);
    b.old_log_probs = pick(log_probs_, idx);
    b.advantages = pick(advantages_, idx);
    b.returns = pick(returns_, idx);
    if (masks_.defined()) b.action_masks = pick(masks_, idx);
    b.episode_starts = starts_.index_select(1, idx);
    b.initial_state = initial_state_.index_select(2, idx);
    out.push_back(std::move(b));
  }
  return out;
}

}  // namespace rlzoo
