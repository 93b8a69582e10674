#include "rl/buffers/replay_buffer.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fmt/format.h>

#include "rl/nets/observation.h"
#include "core/common/error.h"
#include "core/torch/tensor_io.h"

namespace rlzoo {

namespace {
// Blob format version, stored so that a future layout change is detected, not misread.
constexpr std::int64_t kFormat = 1;
}  // namespace

ReplayBuffer::ReplayBuffer(Space observation_space, Space action_space, std::int64_t capacity, std::int64_t n_envs)
    : obs_space_(std::move(observation_space)),
      act_space_(std::move(action_space)),
      obs_bytes_(obs_space_.byte_size()),
      act_bytes_(act_space_.byte_size()),
      slots_(n_envs > 0 ? capacity / n_envs : 0),
      n_envs_(n_envs) {
  if (n_envs < 1) throw UserError(fmt::format("replay buffer needs n_envs >= 1, got {}", n_envs));
  if (slots_ < 2)
    throw UserError(
        fmt::format("replay buffer of {} transitions is too small for {} envs: each env needs at least "
                    "2 slots (capacity >= {})",
                    capacity, n_envs, 2 * n_envs));
  if (act_space_.kind() == SpaceKind::Dict)
    throw UserError(fmt::format("replay buffer: Dict action spaces are not supported ({})", act_space_.describe()));
  const auto u8 = torch::TensorOptions().dtype(torch::kUInt8);
  // Observations and actions are only read where written: no need to zero them (an Atari
  // buffer is tens of GB). Flags are zeroed: add() reads the old flags of a slot it overwrites.
  obs_ = torch::empty({slots_, n_envs_, static_cast<std::int64_t>(obs_bytes_)}, u8);
  actions_ = torch::empty({slots_, n_envs_, static_cast<std::int64_t>(act_bytes_)}, u8);
  rewards_ = torch::zeros({slots_, n_envs_}, torch::kFloat64);
  terminated_ = torch::zeros({slots_, n_envs_}, u8);
  truncated_ = torch::zeros({slots_, n_envs_}, u8);
  obs_p_ = static_cast<std::byte*>(obs_.data_ptr());
  act_p_ = static_cast<std::byte*>(actions_.data_ptr());
  rew_p_ = rewards_.data_ptr<double>();
  term_p_ = terminated_.data_ptr<std::uint8_t>();
  trunc_p_ = truncated_.data_ptr<std::uint8_t>();
}

const std::byte* ReplayBuffer::obs_row(std::int64_t slot, std::int64_t env) const {
  return obs_p_ + static_cast<std::size_t>(key(slot, env)) * obs_bytes_;
}
std::byte* ReplayBuffer::obs_row(std::int64_t slot, std::int64_t env) {
  return obs_p_ + static_cast<std::size_t>(key(slot, env)) * obs_bytes_;
}

void ReplayBuffer::keep_final(std::int64_t slot, std::int64_t env, const std::byte* row) {
  auto& kept = final_obs_[key(slot, env)];
  kept.assign(row, row + obs_bytes_);
}

void ReplayBuffer::add(ConstBytes obs, ConstBytes actions, std::span<const double> rewards,
                       std::span<const std::uint8_t> terminated, std::span<const std::uint8_t> truncated,
                       ConstBytes next_obs, ConstBytes final_obs) {
  const auto n = static_cast<std::size_t>(n_envs_);
  RLZOO_CHECK(obs.size() == n * obs_bytes_ && next_obs.size() == n * obs_bytes_ && final_obs.size() == n * obs_bytes_,
              fmt::format("replay buffer: observation batches must be {} x {} bytes", n, obs_bytes_));
  RLZOO_CHECK(actions.size() == n * act_bytes_,
              fmt::format("replay buffer: actions must be {} x {} bytes", n, act_bytes_));
  RLZOO_CHECK(rewards.size() == n && terminated.size() == n && truncated.size() == n,
              fmt::format("replay buffer: rewards and flags must have {} entries", n));
  const std::int64_t next = (pos_ + 1) % slots_;
  const std::int64_t prev = (pos_ + slots_ - 1) % slots_;
  for (std::int64_t e = 0; e < n_envs_; ++e) {
    const std::size_t i = static_cast<std::size_t>(key(pos_, e));
    const std::byte* o = obs.data() + static_cast<std::size_t>(e) * obs_bytes_;
    std::byte* row = obs_row(pos_, e);
    // A cut in the env's stream: the previous transition keeps the next observation it was
    // stored with, as its final one, and ends there.
    if (steps_added_ > 0 && std::memcmp(row, o, obs_bytes_) != 0) {
      const std::size_t p = static_cast<std::size_t>(key(prev, e));
      if (!term_p_[p] && !trunc_p_[p]) {
        keep_final(prev, e, row);
        trunc_p_[p] = 1;
      }
    }
    // The old transition in this slot leaves the buffer, with its final observation.
    if (term_p_[i] || trunc_p_[i]) final_obs_.erase(key(pos_, e));
    std::memcpy(row, o, obs_bytes_);
    std::memcpy(act_p_ + i * act_bytes_, actions.data() + static_cast<std::size_t>(e) * act_bytes_, act_bytes_);
    rew_p_[i] = rewards[static_cast<std::size_t>(e)];
    term_p_[i] = terminated[static_cast<std::size_t>(e)] ? 1 : 0;
    trunc_p_[i] = truncated[static_cast<std::size_t>(e)] ? 1 : 0;
    if (term_p_[i] || trunc_p_[i]) keep_final(pos_, e, final_obs.data() + static_cast<std::size_t>(e) * obs_bytes_);
    std::memcpy(obs_row(next, e), next_obs.data() + static_cast<std::size_t>(e) * obs_bytes_, obs_bytes_);
  }
  pos_ = next;
  if (pos_ == 0) full_ = true;
  ++steps_added_;
}

bool ReplayBuffer::sampleable(std::int64_t slot) const {
  if (slot < 0 || slot >= slots_ || slot == pos_) return false;
  return full_ || slot < pos_;
}

const std::byte* ReplayBuffer::next_obs_row(std::int64_t slot, std::int64_t env) const {
  const auto k = static_cast<std::size_t>(key(slot, env));
  if (term_p_[k] || trunc_p_[k]) {
    auto it = final_obs_.find(key(slot, env));
    RLZOO_CHECK(it != final_obs_.end(), fmt::format("replay buffer: episode end at slot {} env {} has no final "
                                                    "observation",
                                                    slot, env));
    return it->second.data();
  }
  return obs_row((slot + 1) % slots_, env);
}

ReplaySample ReplayBuffer::gather(std::span<const std::int64_t> indices, double gamma, std::int64_t n_step) const {
  if (!(gamma >= 0.0 && gamma <= 1.0))
    throw UserError(fmt::format("replay buffer: gamma must be in [0, 1], got {}", gamma));
  if (n_step < 1) throw UserError(fmt::format("replay buffer: n_step must be >= 1, got {}", n_step));
  const auto batch = static_cast<std::int64_t>(indices.size());
  const auto ob = static_cast<std::int64_t>(obs_bytes_);
  ReplaySample s;
  s.obs = torch::empty({batch, ob}, torch::kUInt8);
  s.next_obs = torch::empty({batch, ob}, torch::kUInt8);
  std::vector<std::int64_t> act_shape{batch};
  for (auto d : act_space_.shape()) act_shape.push_back(d);
  s.actions = torch::empty(act_shape, torch::TensorOptions().dtype(torch_dtype(act_space_.dtype())));
  s.rewards = torch::empty({batch}, torch::kFloat32);
  s.terminated = torch::empty({batch}, torch::kFloat32);
  s.discounts = torch::empty({batch}, torch::kFloat32);
  s.indices = torch::empty({batch}, torch::kInt64);
  auto* o = static_cast<std::byte*>(s.obs.data_ptr());
  auto* no = static_cast<std::byte*>(s.next_obs.data_ptr());
  auto* a = static_cast<std::byte*>(s.actions.data_ptr());
  float* r = s.rewards.data_ptr<float>();
  float* term = s.terminated.data_ptr<float>();
  float* disc = s.discounts.data_ptr<float>();
  std::int64_t* idx = s.indices.data_ptr<std::int64_t>();
  for (std::int64_t b = 0; b < batch; ++b) {
    const std::int64_t flat = indices[static_cast<std::size_t>(b)];
    const std::int64_t slot = flat / n_envs_, env = flat % n_envs_;
    RLZOO_CHECK(flat >= 0 && sampleable(slot), fmt::format("replay buffer: index {} is not a stored transition", flat));
    const auto bi = static_cast<std::size_t>(b);
    idx[b] = flat;
    std::memcpy(o + bi * obs_bytes_, obs_row(slot, env), obs_bytes_);
    std::memcpy(a + bi * act_bytes_, act_p_ + static_cast<std::size_t>(flat) * act_bytes_, act_bytes_);
    // Walk the env's stream forward: stop after an episode end, after n_step rewards, or
    // before the write position (whose slot holds the newest observation, but no transition).
    double ret = 0.0, discount = 1.0;
    bool terminal = false;
    std::int64_t t = slot;
    const std::byte* next_row = nullptr;
    for (std::int64_t m = 0;; ++m) {
      const auto k = static_cast<std::size_t>(key(t, env));
      ret += discount * rew_p_[k];
      discount *= gamma;
      if (term_p_[k] || trunc_p_[k]) {
        terminal = term_p_[k] != 0;
        next_row = next_obs_row(t, env);
        break;
      }
      const std::int64_t following = (t + 1) % slots_;
      if (m + 1 == n_step || following == pos_) {
        next_row = obs_row(following, env);
        break;
      }
      t = following;
    }
    std::memcpy(no + bi * obs_bytes_, next_row, obs_bytes_);
    r[b] = static_cast<float>(ret);
    term[b] = terminal ? 1.0f : 0.0f;
    disc[b] = static_cast<float>(discount);
  }
  return s;
}

ReplaySample ReplayBuffer::sample(std::int64_t batch, double gamma, std::int64_t n_step) const {
  if (size() == 0) throw UserError("replay buffer: cannot sample from an empty buffer");
  if (batch < 1) throw UserError(fmt::format("replay buffer: batch size must be >= 1, got {}", batch));
  // Uniform over the available transitions: draw k in [0, size()), then map the time offset
  // to a slot (the oldest stored slot is the one after the write position once full).
  const torch::Tensor k = torch::randint(size(), {batch}, torch::kInt64);
  const std::int64_t* kp = k.data_ptr<std::int64_t>();
  std::vector<std::int64_t> flat(static_cast<std::size_t>(batch));
  for (std::int64_t b = 0; b < batch; ++b) {
    const std::int64_t offset = kp[b] / n_envs_, env = kp[b] % n_envs_;
    const std::int64_t slot = full_ ? (pos_ + 1 + offset) % slots_ : offset;
    flat[static_cast<std::size_t>(b)] = key(slot, env);
  }
  return gather(flat, gamma, n_step);
}

std::int64_t ReplayBuffer::rows_written() const {
  if (full_) return slots_;
  return steps_added_ > 0 ? pos_ + 1 : 0;
}

void ReplayBuffer::save(CheckpointWriter& writer, const std::string& name) const {
  const std::int64_t rows = rows_written();
  auto head = [rows](const torch::Tensor& t) { return t.narrow(0, 0, rows).clone(); };
  std::vector<std::int64_t> keys;
  keys.reserve(final_obs_.size());
  for (const auto& [k, v] : final_obs_) keys.push_back(k);
  std::sort(keys.begin(), keys.end());  // a canonical order: the same buffer gives the same bytes
  torch::Tensor finals =
      torch::empty({static_cast<std::int64_t>(keys.size()), static_cast<std::int64_t>(obs_bytes_)}, torch::kUInt8);
  for (std::size_t i = 0; i < keys.size(); ++i)
    std::memcpy(static_cast<std::byte*>(finals.data_ptr()) + i * obs_bytes_, final_obs_.at(keys[i]).data(), obs_bytes_);
  TensorMap m;
  const std::vector<std::int64_t> header{
      kFormat, slots_,        n_envs_,     static_cast<std::int64_t>(obs_bytes_), static_cast<std::int64_t>(act_bytes_),
      pos_,    full_ ? 1 : 0, steps_added_};
  m["header"] = torch::tensor(header, torch::kInt64);
  m["obs"] = head(obs_);
  m["actions"] = head(actions_);
  // Before the buffer is full, the last row holds the next observation only: its action is
  // not written yet, and saving those uninitialised bytes would make equal buffers differ.
  if (!full_ && rows > 0) m["actions"].select(0, rows - 1).zero_();
  m["rewards"] = head(rewards_);
  m["terminated"] = head(terminated_);
  m["truncated"] = head(truncated_);
  m["final_keys"] = torch::tensor(keys, torch::kInt64);
  m["final_obs"] = finals;
  writer.add(name, save_tensors(m));
}

void ReplayBuffer::load(const CheckpointReader& reader, const std::string& name) {
  const std::string blob = (reader.dir() / name).string();
  const TensorMap m = load_tensors(reader, name);
  auto get = [&](const char* key, torch::ScalarType dtype) -> const torch::Tensor& {
    auto it = m.find(key);
    if (it == m.end()) throw UserError(fmt::format("{}: not a replay buffer: no '{}' tensor", blob, key));
    if (it->second.scalar_type() != dtype)
      throw UserError(fmt::format("{}: replay buffer tensor '{}' has dtype {}, expected {}", blob, key,
                                  c10::toString(it->second.scalar_type()), c10::toString(dtype)));
    return it->second;
  };
  const torch::Tensor& header = get("header", torch::kInt64);
  if (header.numel() != 8 || header[0].item<std::int64_t>() != kFormat)
    throw UserError(fmt::format("{}: unknown replay buffer format", blob));
  const auto h = header.contiguous();
  const std::int64_t* hp = h.data_ptr<std::int64_t>();
  const std::int64_t want[] = {slots_, n_envs_, static_cast<std::int64_t>(obs_bytes_),
                               static_cast<std::int64_t>(act_bytes_)};
  const char* what[] = {"slots per env", "envs", "observation bytes", "action bytes"};
  for (int i = 0; i < 4; ++i)
    if (hp[i + 1] != want[i])
      throw UserError(
          fmt::format("{}: the saved replay buffer has {} {}, this one {} (buffer_size and n_envs must "
                      "match the saved run)",
                      blob, hp[i + 1], what[i], want[i]));
  const std::int64_t pos = hp[5], steps = hp[7];
  const bool full = hp[6] != 0;
  const std::int64_t rows = full ? slots_ : (steps > 0 ? pos + 1 : 0);
  if (pos < 0 || pos >= slots_ || steps < 0) throw UserError(fmt::format("{}: corrupt replay buffer header", blob));
  auto check_rows = [&](const torch::Tensor& t, const char* key) {
    if (t.dim() < 2 || t.size(0) != rows || t.size(1) != n_envs_)
      throw UserError(fmt::format("{}: replay buffer tensor '{}' has shape {}, expected {} rows of {} envs", blob, key,
                                  fmt::format("{}", fmt::join(t.sizes(), "x")), rows, n_envs_));
  };
  const torch::Tensor& obs = get("obs", torch::kUInt8);
  const torch::Tensor& actions = get("actions", torch::kUInt8);
  const torch::Tensor& rewards = get("rewards", torch::kFloat64);
  const torch::Tensor& term = get("terminated", torch::kUInt8);
  const torch::Tensor& trunc = get("truncated", torch::kUInt8);
  check_rows(obs, "obs");
  check_rows(actions, "actions");
  check_rows(rewards, "rewards");
  check_rows(term, "terminated");
  check_rows(trunc, "truncated");
  const torch::Tensor keys = get("final_keys", torch::kInt64).contiguous();
  const torch::Tensor finals = get("final_obs", torch::kUInt8).contiguous();
  if (finals.dim() != 2 || finals.size(0) != keys.numel() || finals.size(1) != static_cast<std::int64_t>(obs_bytes_))
    throw UserError(fmt::format("{}: replay buffer final observations do not match their keys", blob));
  std::unordered_map<std::int64_t, std::vector<std::byte>> kept;
  const auto* fp = static_cast<const std::byte*>(finals.data_ptr());
  for (std::int64_t i = 0; i < keys.numel(); ++i) {
    const std::int64_t k = keys.data_ptr<std::int64_t>()[i];
    if (k < 0 || k >= slots_ * n_envs_) throw UserError(fmt::format("{}: corrupt replay buffer key {}", blob, k));
    kept[k].assign(fp + i * obs_bytes_, fp + (i + 1) * obs_bytes_);
  }
  // Everything checked: now replace the contents.
  rewards_.zero_();
  terminated_.zero_();
  truncated_.zero_();
  if (rows > 0) {
    obs_.narrow(0, 0, rows).copy_(obs);
    actions_.narrow(0, 0, rows).copy_(actions);
    rewards_.narrow(0, 0, rows).copy_(rewards);
    terminated_.narrow(0, 0, rows).copy_(term);
    truncated_.narrow(0, 0, rows).copy_(trunc);
  }
  final_obs_ = std::move(kept);
  pos_ = pos;
  full_ = full;
  steps_added_ = steps;
}

}  // namespace rlzoo
