// libFuzzer target: the learner's checks of an uploaded trajectory (decode_trajectory in
// distributed/trajectory_wire.h), the bytes an actor sends over the network. The input's first
// byte picks one of three fleet agreements (trajectory shape and observation space: a float32
// Box, a float64 Box with action masks, a Dict with a Discrete field); the rest is parsed as a
// fleet::TrajectoryUpload. A message the checks accept must decode into arrays of exactly the
// agreed sizes, hold only finite rewards, extras and observations, and survive a round trip.
//
// Seeds: RLZOO_FUZZ_WRITE_SEEDS=DIR fuzz_trajectory_wire writes valid uploads for each agreement
// (and a few broken ones) into DIR and exits; fuzz/corpus/fuzz_trajectory_wire holds them.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "core/spaces/space_leaves.h"
#include "distributed/trajectory_wire.h"

namespace {

using namespace rlzoo;

struct Agreement {
  TrajectoryShape shape;
  Space obs_space;
};

const std::vector<Agreement>& agreements() {
  static const std::vector<Agreement> all = [] {
    const Space box32 = Space::box(-10, 10, {4});
    const Space box64 = Space::box(-1, 1, {2}, DType::Float64);
    const Space dict = Space::dict({{"pos", Space::box(-5, 5, {2})}, {"id", Space::discrete(5)}});
    return std::vector<Agreement>{
        {{3, 2, box32.byte_size(), 8, 3, 0}, box32},
        {{2, 3, box64.byte_size(), 8, 1, 4}, box64},
        {{1, 1, dict.byte_size(), 8, 0, 0}, dict},
    };
  }();
  return all;
}

template <class T>
void fill_floats(std::vector<std::byte>& rows, double scale) {
  for (std::size_t i = 0; i < rows.size() / sizeof(T); ++i) {
    const T v = static_cast<T>(scale * static_cast<double>(i % 7));
    std::memcpy(rows.data() + i * sizeof(T), &v, sizeof(T));
  }
}

// A valid trajectory for agreement k: observations inside the space, one finished episode.
Trajectory sample(std::size_t k) {
  const Agreement& a = agreements()[k];
  Trajectory t(a.shape);
  if (k == 1) {
    fill_floats<double>(t.obs, 0.1);
    fill_floats<double>(t.next_obs, 0.1);
    fill_floats<double>(t.final_obs, 0.1);
  } else if (k == 0) {
    fill_floats<float>(t.obs, 1.0);
    fill_floats<float>(t.next_obs, 1.0);
    fill_floats<float>(t.final_obs, 1.0);
  }  // the Dict agreement: all-zero rows are elements too
  for (std::size_t i = 0; i < t.rewards.size(); ++i) t.rewards[i] = 0.5 * static_cast<double>(i);
  for (std::size_t i = 0; i < t.extras.size(); ++i) t.extras[i] = -0.25f * static_cast<float>(i);
  for (auto& m : t.masks) m = 1;
  for (auto& m : t.next_masks) m = 1;
  t.terminated.back() = 1;
  t.episode_returns.back() = 3.0;
  t.episode_lengths.back() = 9;
  t.sequence = 2;
  t.policy_version = 5;
  return t;
}

void write_seed(const std::filesystem::path& dir, const std::string& name, std::size_t k,
                const fleet::TrajectoryUpload& m) {
  std::string bytes(1, static_cast<char>(k));
  bytes += m.SerializeAsString();
  std::ofstream(dir / name, std::ios::binary) << bytes;
}

void write_seeds(const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  for (std::size_t k = 0; k < agreements().size(); ++k) {
    fleet::TrajectoryUpload good;
    encode_trajectory(sample(k), good);
    write_seed(dir, "valid-" + std::to_string(k), k, good);
    fleet::TrajectoryUpload nan = good;
    std::string rewards = nan.rewards().data();
    const double bad = std::numeric_limits<double>::quiet_NaN();
    std::memcpy(rewards.data(), &bad, sizeof bad);
    nan.mutable_rewards()->set_data(rewards);
    write_seed(dir, "nan-reward-" + std::to_string(k), k, nan);
    fleet::TrajectoryUpload wrong_shape = good;
    wrong_shape.set_num_envs(good.num_envs() + 1);
    write_seed(dir, "wrong-shape-" + std::to_string(k), k, wrong_shape);
  }
}

void require(bool ok) {
  if (!ok) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  if (const char* dir = std::getenv("RLZOO_FUZZ_WRITE_SEEDS")) {
    write_seeds(dir);
    std::exit(0);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const Agreement& a = agreements()[data[0] % agreements().size()];
  fleet::TrajectoryUpload msg;
  if (!msg.ParseFromArray(data + 1, static_cast<int>(size - 1))) return 0;
  Trajectory t;
  if (const auto error = decode_trajectory(msg, a.shape, a.obs_space, t)) {
    require(!error->kind.empty() && !error->detail.empty());
    return 0;
  }
  // Accepted: exactly the agreed sizes, and only finite values where the learner reads them.
  const Trajectory sized(a.shape);
  require(t.shape == a.shape);
  require(t.obs.size() == sized.obs.size() && t.actions.size() == sized.actions.size() &&
          t.extras.size() == sized.extras.size() && t.masks.size() == sized.masks.size() &&
          t.rewards.size() == sized.rewards.size() && t.final_obs.size() == sized.final_obs.size() &&
          t.episode_returns.size() == sized.episode_returns.size() &&
          t.episode_lengths.size() == sized.episode_lengths.size() && t.next_obs.size() == sized.next_obs.size() &&
          t.next_masks.size() == sized.next_masks.size());
  for (double r : t.rewards) require(std::isfinite(r));
  for (float x : t.extras) require(std::isfinite(x));
  const std::size_t row = a.obs_space.byte_size();
  for (std::size_t r = 0; r < t.obs.size() / row; ++r)
    require(all_finite(a.obs_space, ConstBytes(t.obs).subspan(r * row, row)));
  // Round trip: what the learner kept encodes to a message it accepts again, unchanged.
  fleet::TrajectoryUpload again;
  encode_trajectory(t, again);
  Trajectory back;
  require(!decode_trajectory(again, a.shape, a.obs_space, back));
  require(back.obs == t.obs && back.actions == t.actions && back.masks == t.masks &&
          back.terminated == t.terminated && back.truncated == t.truncated && back.next_obs == t.next_obs &&
          back.episode_lengths == t.episode_lengths && back.sequence == t.sequence &&
          back.policy_version == t.policy_version);
  require(std::memcmp(back.rewards.data(), t.rewards.data(), t.rewards.size() * sizeof(double)) == 0);
  return 0;
}
