#include "distributed/trajectory_wire.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/spaces/space_leaves.h"

namespace rlzoo {

using fleet::Tensor;

namespace {

template <class T>
void put(const std::vector<T>& v, Tensor::DType dtype, std::initializer_list<std::int64_t> shape, Tensor* out) {
  out->set_dtype(dtype);
  for (auto s : shape) out->add_shape(s);
  out->set_data(v.data(), v.size() * sizeof(T));
}

}  // namespace

std::size_t wire_element_size(fleet::Tensor::DType d) {
  switch (d) {
    case Tensor::UINT8:
    case Tensor::BYTES:
      return 1;
    case Tensor::INT64:
    case Tensor::FLOAT64:
      return 8;
    case Tensor::FLOAT32:
      return 4;
    default:
      return 0;
  }
}

namespace {

// Checks one field's dtype, shape and byte count, then copies it into `v`.
template <class T>
std::optional<WireError> take(const Tensor& t, const char* name, Tensor::DType dtype,
                              std::initializer_list<std::int64_t> shape, std::vector<T>& v) {
  if (t.dtype() != dtype)
    return WireError{"dtype", fmt::format("{}: dtype {} where {} was expected", name, Tensor::DType_Name(t.dtype()),
                                          Tensor::DType_Name(dtype))};
  const std::vector<std::int64_t> want(shape);
  if (t.shape_size() != static_cast<int>(want.size()) || !std::equal(want.begin(), want.end(), t.shape().begin()))
    return WireError{"shape", fmt::format("{}: shape [{}] where [{}] was expected", name,
                                          fmt::join(t.shape(), ", "), fmt::join(want, ", "))};
  std::size_t n = wire_element_size(dtype);
  for (auto s : want) n *= static_cast<std::size_t>(s);
  if (t.data().size() != n)
    return WireError{"size", fmt::format("{}: {} bytes where shape and dtype make {}", name, t.data().size(), n)};
  v.resize(n / sizeof(T));
  if (n > 0) std::memcpy(v.data(), t.data().data(), n);
  return std::nullopt;
}

template <class T>
std::optional<WireError> all_finite_values(const std::vector<T>& v, const char* name) {
  for (std::size_t i = 0; i < v.size(); ++i)
    if (!std::isfinite(static_cast<double>(v[i])))
      return WireError{"non_finite", fmt::format("{}: value {} is {}", name, i, static_cast<double>(v[i]))};
  return std::nullopt;
}

std::optional<WireError> finite_rows(const std::vector<std::byte>& rows, const Space& space, const char* name,
                                     const std::vector<std::uint8_t>* only_where = nullptr) {
  const std::size_t b = space.byte_size();
  for (std::size_t r = 0; b > 0 && r < rows.size() / b; ++r) {
    if (only_where && !(*only_where)[r]) continue;
    if (!all_finite(space, ConstBytes(rows).subspan(r * b, b)))
      return WireError{"non_finite", fmt::format("{}: row {} holds a non-finite value", name, r)};
  }
  return std::nullopt;
}

}  // namespace

void encode_trajectory(const Trajectory& t, fleet::TrajectoryUpload& m) {
  const TrajectoryShape& s = t.shape;
  const std::int64_t T = s.num_steps, M = s.num_envs;
  m.set_sequence(t.sequence);
  m.set_policy_version(t.policy_version);
  m.set_num_steps(T);
  m.set_num_envs(M);
  const auto ob = static_cast<std::int64_t>(s.obs_bytes), ab = static_cast<std::int64_t>(s.action_bytes);
  put(t.obs, Tensor::BYTES, {T * M, ob}, m.mutable_obs());
  put(t.actions, Tensor::BYTES, {T * M, ab}, m.mutable_actions());
  put(t.extras, Tensor::FLOAT32, {T, M, static_cast<std::int64_t>(s.num_extras)}, m.mutable_extras());
  put(t.masks, Tensor::UINT8, {T, M, static_cast<std::int64_t>(s.mask_size)}, m.mutable_masks());
  put(t.rewards, Tensor::FLOAT64, {T, M}, m.mutable_rewards());
  put(t.terminated, Tensor::UINT8, {T, M}, m.mutable_terminated());
  put(t.truncated, Tensor::UINT8, {T, M}, m.mutable_truncated());
  put(t.final_obs, Tensor::BYTES, {T * M, ob}, m.mutable_final_obs());
  put(t.episode_returns, Tensor::FLOAT64, {T, M}, m.mutable_episode_returns());
  put(t.episode_lengths, Tensor::INT64, {T, M}, m.mutable_episode_lengths());
  put(t.next_obs, Tensor::BYTES, {M, ob}, m.mutable_next_obs());
  put(t.next_masks, Tensor::UINT8, {M, static_cast<std::int64_t>(s.mask_size)}, m.mutable_next_masks());
}

std::optional<WireError> decode_trajectory(const fleet::TrajectoryUpload& m, const TrajectoryShape& want,
                                           const Space& obs_space, Trajectory& t) {
  if (m.num_steps() != want.num_steps || m.num_envs() != want.num_envs)
    return WireError{"shape", fmt::format("{} steps x {} envs where the fleet agreed on {} x {}", m.num_steps(),
                                          m.num_envs(), want.num_steps, want.num_envs)};
  const std::int64_t T = want.num_steps, M = want.num_envs;
  const auto ob = static_cast<std::int64_t>(want.obs_bytes), ab = static_cast<std::int64_t>(want.action_bytes);
  const auto k = static_cast<std::int64_t>(want.num_extras), ms = static_cast<std::int64_t>(want.mask_size);
  t.shape = want;
  t.sequence = m.sequence();
  t.policy_version = m.policy_version();
  std::optional<WireError> e;
  if ((e = take(m.obs(), "obs", Tensor::BYTES, {T * M, ob}, t.obs)) ||
      (e = take(m.actions(), "actions", Tensor::BYTES, {T * M, ab}, t.actions)) ||
      (e = take(m.extras(), "extras", Tensor::FLOAT32, {T, M, k}, t.extras)) ||
      (e = take(m.masks(), "masks", Tensor::UINT8, {T, M, ms}, t.masks)) ||
      (e = take(m.rewards(), "rewards", Tensor::FLOAT64, {T, M}, t.rewards)) ||
      (e = take(m.terminated(), "terminated", Tensor::UINT8, {T, M}, t.terminated)) ||
      (e = take(m.truncated(), "truncated", Tensor::UINT8, {T, M}, t.truncated)) ||
      (e = take(m.final_obs(), "final_obs", Tensor::BYTES, {T * M, ob}, t.final_obs)) ||
      (e = take(m.episode_returns(), "episode_returns", Tensor::FLOAT64, {T, M}, t.episode_returns)) ||
      (e = take(m.episode_lengths(), "episode_lengths", Tensor::INT64, {T, M}, t.episode_lengths)) ||
      (e = take(m.next_obs(), "next_obs", Tensor::BYTES, {M, ob}, t.next_obs)) ||
      (e = take(m.next_masks(), "next_masks", Tensor::UINT8, {M, ms}, t.next_masks)))
    return e;
  std::vector<std::uint8_t> done(t.terminated.size());
  for (std::size_t i = 0; i < done.size(); ++i) done[i] = t.terminated[i] || t.truncated[i];
  if ((e = all_finite_values(t.rewards, "rewards")) || (e = all_finite_values(t.extras, "extras")) ||
      (e = finite_rows(t.obs, obs_space, "obs")) || (e = finite_rows(t.next_obs, obs_space, "next_obs")) ||
      (e = finite_rows(t.final_obs, obs_space, "final_obs", &done)))
    return e;
  for (std::size_t i = 0; i < done.size(); ++i)
    if (done[i] && !std::isfinite(t.episode_returns[i]))
      return WireError{"non_finite", fmt::format("episode_returns: value {} is not finite", i)};
  return std::nullopt;
}

}  // namespace rlzoo
