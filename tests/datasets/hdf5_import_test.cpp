// HDF5 import of D4RL and Minari layouts, from small files written here with the HDF5 C API
// (bools as h5py writes them: an enum over int8).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "datasets/dataset_reader.h"
#include "datasets/hdf5_import.h"
#include "envs/builtin.h"
#include "tests/support/test_paths.h"

#ifdef RLZOO_WITH_HDF5
#include <hdf5.h>
#endif

namespace rlzoo::data {
namespace {

using ::testing::HasSubstr;
namespace fs = std::filesystem;

#ifndef RLZOO_WITH_HDF5

TEST(Hdf5Import, ReportsThatTheBuildHasNoHdf5) {
  EXPECT_FALSE(hdf5_import_available());
  EXPECT_THAT(test::error_of([] { import_hdf5("x.hdf5", "out"); }), HasSubstr("built without HDF5 support"));
}

#else

template <class T> hid_t native_type();
template <> hid_t native_type<float>() { return H5T_NATIVE_FLOAT; }
template <> hid_t native_type<double>() { return H5T_NATIVE_DOUBLE; }
template <> hid_t native_type<std::int64_t>() { return H5T_NATIVE_INT64; }
template <> hid_t native_type<std::int32_t>() { return H5T_NATIVE_INT32; }

// A new HDF5 file; datasets are written in one call each.
class H5File {
 public:
  explicit H5File(const fs::path& path) : id_(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT)) {
    EXPECT_GE(id_, 0);
  }
  H5File(const H5File&) = delete;
  H5File& operator=(const H5File&) = delete;
  ~H5File() {
    for (hid_t g : groups_) H5Gclose(g);
    H5Fclose(id_);
  }
  hid_t id() const { return id_; }

  hid_t group(const std::string& name) {
    const hid_t g = H5Gcreate2(id_, name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    groups_.push_back(g);
    return g;
  }

  template <class T>
  static void write(hid_t loc, const std::string& name, std::vector<hsize_t> dims, const std::vector<T>& values) {
    write_raw(loc, name, std::move(dims), native_type<T>(), values.data(), values.size());
  }
  // h5py's bool: an enum over int8 with FALSE = 0 and TRUE = 1.
  static void write_bools(hid_t loc, const std::string& name, const std::vector<std::int8_t>& values) {
    const hid_t type = H5Tenum_create(H5T_NATIVE_INT8);
    std::int8_t v = 0;
    H5Tenum_insert(type, "FALSE", &v);
    v = 1;
    H5Tenum_insert(type, "TRUE", &v);
    write_raw(loc, name, {values.size()}, type, values.data(), values.size());
    H5Tclose(type);
  }

 private:
  static void write_raw(hid_t loc, const std::string& name, std::vector<hsize_t> dims, hid_t type, const void* data,
                        std::size_t count) {
    hsize_t n = 1;
    for (auto d : dims) n *= d;
    ASSERT_EQ(n, count) << name;
    const hid_t space = H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr);
    const hid_t set = H5Dcreate2(loc, name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    ASSERT_GE(set, 0) << name;
    EXPECT_GE(H5Dwrite(set, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), 0) << name;
    H5Dclose(set);
    H5Sclose(space);
  }

  hid_t id_;
  std::vector<hid_t> groups_;
};

template <class T>
std::vector<T> values_of(const std::vector<std::byte>& bytes) {
  std::vector<T> out(bytes.size() / sizeof(T));
  std::memcpy(out.data(), bytes.data(), bytes.size());
  return out;
}

// Rows [begin, end) of a row-major [N, width] array.
template <class T>
std::vector<T> rows(const std::vector<T>& v, std::size_t width, std::size_t begin, std::size_t end) {
  return std::vector<T>(v.begin() + static_cast<std::ptrdiff_t>(begin * width), v.begin() + static_cast<std::ptrdiff_t>(end * width));
}

template <class To, class From>
std::vector<To> cast(const std::vector<From>& v) {
  return std::vector<To>(v.begin(), v.end());
}

fs::path temp(const std::string& name) { return fs::path(test::make_temp_dir("rlzoo-hdf5")) / name; }

struct D4rlData {
  static constexpr std::size_t n = 10;
  std::vector<float> observations, next_observations;
  std::vector<double> actions;  // float64 in the file, float32 in the dataset
  std::vector<float> rewards;
  // Episodes: rows 0-3 end by a terminal, 4-6 by a timeout, 7-9 are cut by the end of the data.
  std::vector<std::int8_t> terminals{0, 0, 0, 1, 0, 0, 0, 0, 0, 0};
  std::vector<std::int8_t> timeouts{0, 0, 0, 0, 0, 0, 1, 0, 0, 0};

  D4rlData() {
    for (std::size_t i = 0; i < n; ++i) {
      for (int k = 0; k < 3; ++k) {
        observations.push_back(static_cast<float>(i) + 0.1f * static_cast<float>(k));
        next_observations.push_back(static_cast<float>(i) + 0.1f * static_cast<float>(k) + 0.5f);
      }
      actions.push_back(0.125 * static_cast<double>(i));
      actions.push_back(-0.3 * static_cast<double>(i));  // not exact in float32: converted as static_cast
      rewards.push_back(static_cast<float>(i) * 0.7f - 1.0f);
    }
  }

  void write(const fs::path& path, bool with_next_observations) const {
    H5File f(path);
    H5File::write(f.id(), "observations", {n, 3}, observations);
    H5File::write(f.id(), "actions", {n, 2}, actions);
    H5File::write(f.id(), "rewards", {n}, rewards);
    H5File::write_bools(f.id(), "terminals", terminals);
    H5File::write_bools(f.id(), "timeouts", timeouts);
    if (with_next_observations) H5File::write(f.id(), "next_observations", {n, 3}, next_observations);
  }
};

TEST(Hdf5Import, D4rlSplitsAtTerminalsAndTimeoutsAndKeepsTheTail) {
  const D4rlData d;
  const fs::path file = temp("d4rl.hdf5"), out = temp("d");
  d.write(file, /*with_next_observations=*/true);
  const DatasetInfo info = import_hdf5(file, out);
  EXPECT_EQ(info.env, "");
  EXPECT_EQ(info.observation_space.describe(), "Box(-inf, inf, (3,), float32)");
  EXPECT_EQ(info.action_space.describe(), "Box(-inf, inf, (2,), float32)");
  EXPECT_EQ(info.source["layout"], "d4rl");
  EXPECT_EQ(info.source["imported_from"], fs::absolute(file).string());
  EXPECT_EQ(info.lengths, (std::vector<std::int64_t>{4, 3, 3}));

  const auto episodes = DatasetReader(out).read_all();
  ASSERT_EQ(episodes.size(), 3u);
  const std::size_t bounds[][2] = {{0, 4}, {4, 7}, {7, 10}};
  for (std::size_t e = 0; e < 3; ++e) {
    const auto [b, end] = bounds[e];
    EXPECT_EQ(values_of<float>(episodes[e].observations), rows(d.observations, 3, b, end)) << e;
    EXPECT_EQ(values_of<float>(episodes[e].actions), cast<float>(rows(d.actions, 2, b, end))) << e;
    EXPECT_EQ(episodes[e].rewards, rows(d.rewards, 1, b, end)) << e;
    EXPECT_EQ(values_of<float>(episodes[e].final_observation), rows(d.next_observations, 3, end - 1, end)) << e;
  }
  EXPECT_TRUE(episodes[0].terminated);
  EXPECT_FALSE(episodes[0].truncated);
  EXPECT_FALSE(episodes[1].terminated);
  EXPECT_TRUE(episodes[1].truncated);  // timeout
  EXPECT_FALSE(episodes[2].terminated);
  EXPECT_TRUE(episodes[2].truncated);  // the data ended mid-episode
  EXPECT_EQ(info.returns[0], episodes[0].episode_return());
}

TEST(Hdf5Import, D4rlWithoutNextObservationsOrTimeouts) {
  D4rlData d;
  const fs::path file = temp("d4rl.hdf5"), out = temp("d");
  {
    H5File f(file);
    H5File::write(f.id(), "observations", {d.n, 3}, d.observations);
    H5File::write(f.id(), "actions", {d.n, 2}, d.actions);
    H5File::write(f.id(), "rewards", {d.n, 1}, cast<double>(d.rewards));  // [N, 1] float64 rewards
    H5File::write(f.id(), "terminals", {d.n}, cast<std::int32_t>(d.terminals));  // int flags
  }
  import_hdf5(file, out);
  const auto episodes = DatasetReader(out).read_all();
  ASSERT_EQ(episodes.size(), 2u);  // rows 0-3, then 4-9 (no timeouts to split at)
  EXPECT_EQ(episodes[1].length(), 6);
  EXPECT_TRUE(episodes[0].final_observation.empty());
  EXPECT_TRUE(episodes[1].truncated);
  EXPECT_EQ(episodes[1].rewards, rows(d.rewards, 1, 4, 10));
}

TEST(Hdf5Import, EnvIdGivesTheEnvsSpacesAndChecksShapes) {
  register_builtin_envs();
  // Pendulum-v1: observations Box (3,) float32, actions Box(-2, 2, (1,)).
  const std::size_t n = 6;
  std::vector<float> obs(n * 3), actions(n);
  for (std::size_t i = 0; i < obs.size(); ++i) obs[i] = 0.01f * static_cast<float>(i);
  for (std::size_t i = 0; i < n; ++i) actions[i] = 0.25f * static_cast<float>(i) - 1.0f;
  const fs::path file = temp("pendulum.hdf5");
  {
    H5File f(file);
    H5File::write(f.id(), "observations", {n, 3}, obs);
    H5File::write(f.id(), "actions", {n, 1}, actions);
    H5File::write(f.id(), "rewards", {n}, std::vector<float>(n, -1.0f));
    H5File::write_bools(f.id(), "terminals", std::vector<std::int8_t>(n, 0));
  }
  ImportOptions options;
  options.env_id = "Pendulum-v1";
  const fs::path out = temp("d");
  const DatasetInfo info = import_hdf5(file, out, options);
  EXPECT_EQ(info.env, "Pendulum-v1");
  EXPECT_EQ(info.action_space.describe(), "Box(-2, 2, (1,), float32)");
  EXPECT_EQ(values_of<float>(DatasetReader(out).read_all()[0].actions), actions);

  options.env_id = "CartPole-v1";
  EXPECT_THAT(test::error_of([&] { import_hdf5(file, temp("e"), options); }),
              HasSubstr(file.string() + ": dataset 'observations': has rows of shape (3,), but the observation space of "
                                        "CartPole-v1 is Box("));
  options.env_id = "CartPole-v9";
  EXPECT_THAT(test::error_of([&] { import_hdf5(file, temp("e"), options); }), HasSubstr("unknown env 'CartPole-v9'"));
}

void write_minari_episode(H5File& f, int k, std::size_t t, std::size_t obs_dim, bool terminated) {
  const hid_t g = f.group("episode_" + std::to_string(k));
  std::vector<double> obs;
  for (std::size_t i = 0; i <= t; ++i)
    for (std::size_t j = 0; j < obs_dim; ++j) obs.push_back(100.0 * k + static_cast<double>(i) + 0.25 * static_cast<double>(j));
  std::vector<std::int64_t> actions;
  std::vector<double> rewards;
  for (std::size_t i = 0; i < t; ++i) {
    actions.push_back(static_cast<std::int64_t>((i + static_cast<std::size_t>(k)) % 2));
    rewards.push_back(static_cast<double>(k) + 0.5);
  }
  std::vector<std::int8_t> terminations(t, 0), truncations(t, 0);
  (terminated ? terminations : truncations).back() = 1;
  H5File::write(g, "observations", {t + 1, obs_dim}, obs);
  H5File::write(g, "actions", {t}, actions);
  H5File::write(g, "rewards", {t}, rewards);
  H5File::write_bools(g, "terminations", terminations);
  H5File::write_bools(g, "truncations", truncations);
}

TEST(Hdf5Import, MinariEpisodesInNumericOrderWithFinalObservations) {
  register_builtin_envs();
  const fs::path file = temp("minari.hdf5");
  {
    H5File f(file);
    // Written out of order; "episode_10" sorts before "episode_2" by name.
    write_minari_episode(f, 10, 2, 4, false);
    write_minari_episode(f, 0, 5, 4, true);
    write_minari_episode(f, 2, 1, 4, true);
    write_minari_episode(f, 1, 3, 4, false);
  }
  ImportOptions options;
  options.env_id = "CartPole-v1";  // Box (4,) float32 observations, Discrete(2) actions
  const fs::path out = temp("d");
  const DatasetInfo info = import_hdf5(file, out, options);
  EXPECT_EQ(info.source["layout"], "minari");
  EXPECT_EQ(info.lengths, (std::vector<std::int64_t>{5, 3, 1, 2}));
  EXPECT_EQ(info.action_space.describe(), "Discrete(2)");
  const auto episodes = DatasetReader(out).read_all();
  ASSERT_EQ(episodes.size(), 4u);
  const int ks[] = {0, 1, 2, 10};
  for (std::size_t e = 0; e < 4; ++e) {
    const int k = ks[e];
    const auto t = static_cast<std::size_t>(episodes[e].length());
    const auto obs = values_of<float>(episodes[e].observations);
    ASSERT_EQ(obs.size(), t * 4);
    for (std::size_t i = 0; i < t; ++i)
      for (std::size_t j = 0; j < 4; ++j)
        EXPECT_EQ(obs[i * 4 + j], static_cast<float>(100.0 * k + static_cast<double>(i) + 0.25 * static_cast<double>(j)));
    EXPECT_EQ(values_of<float>(episodes[e].final_observation),
              (std::vector<float>{static_cast<float>(100.0 * k + static_cast<double>(t)),
                                  static_cast<float>(100.0 * k + static_cast<double>(t) + 0.25),
                                  static_cast<float>(100.0 * k + static_cast<double>(t) + 0.5),
                                  static_cast<float>(100.0 * k + static_cast<double>(t) + 0.75)}));
    const auto actions = values_of<std::int64_t>(episodes[e].actions);
    for (std::size_t i = 0; i < t; ++i) EXPECT_EQ(actions[i], static_cast<std::int64_t>((i + static_cast<std::size_t>(k)) % 2));
    EXPECT_EQ(episodes[e].rewards, std::vector<float>(t, static_cast<float>(k) + 0.5f));
    EXPECT_EQ(episodes[e].terminated, k == 0 || k == 2);
    EXPECT_EQ(episodes[e].truncated, k == 1 || k == 10);
  }
}

TEST(Hdf5Import, BadFilesAreClearErrors) {
  register_builtin_envs();
  const fs::path text = temp("x.hdf5");
  std::ofstream(text) << "not hdf5";
  EXPECT_THAT(test::error_of([&] { import_hdf5(text, temp("d")); }), HasSubstr(text.string() + ": not an HDF5 file"));
  EXPECT_THAT(test::error_of([&] { import_hdf5(temp("missing.hdf5"), temp("d")); }), HasSubstr(": no such file"));

  const fs::path neither = temp("n.hdf5");
  {
    H5File f(neither);
    H5File::write(f.id(), "obs", {2}, std::vector<float>{1, 2});
  }
  EXPECT_THAT(test::error_of([&] { import_hdf5(neither, temp("d")); }),
              HasSubstr("neither D4RL's layout (root datasets observations, actions, rewards, terminals) nor Minari's "
                        "(groups episode_<k>); the root holds: obs"));

  const fs::path missing = temp("m.hdf5");
  {
    H5File f(missing);
    H5File::write(f.id(), "observations", {2, 1}, std::vector<float>{1, 2});
    H5File::write(f.id(), "actions", {3}, std::vector<float>{1, 2, 3});
  }
  const fs::path out = temp("d");
  EXPECT_THAT(test::error_of([&] { import_hdf5(missing, out); }), HasSubstr(missing.string() + ": dataset 'rewards': missing"));
  EXPECT_FALSE(fs::exists(out));
  {
    H5File f(missing);
    H5File::write(f.id(), "observations", {2, 1}, std::vector<float>{1, 2});
    H5File::write(f.id(), "actions", {3}, std::vector<float>{1, 2, 3});
    H5File::write(f.id(), "rewards", {2}, std::vector<float>{1, 2});
    H5File::write(f.id(), "terminals", {2}, std::vector<float>{0, 1});
  }
  EXPECT_THAT(test::error_of([&] { import_hdf5(missing, out); }),
              HasSubstr("dataset 'actions': has 3 rows; expected 2 (one per row of 'observations')"));

  // A value outside a Discrete action space, named by its row; no dataset is left behind.
  const fs::path bad_action = temp("a.hdf5");
  {
    H5File f(bad_action);
    H5File::write(f.id(), "observations", {3, 4}, std::vector<float>(12, 0.0f));
    H5File::write(f.id(), "actions", {3}, std::vector<std::int64_t>{0, 1, 2});
    H5File::write(f.id(), "rewards", {3}, std::vector<float>{1, 1, 1});
    H5File::write_bools(f.id(), "terminals", {0, 1, 0});
  }
  ImportOptions options;
  options.env_id = "CartPole-v1";
  const fs::path partial = temp("p");
  EXPECT_THAT(test::error_of([&] { import_hdf5(bad_action, partial, options); }),
              HasSubstr(bad_action.string() + ": dataset 'actions': row 2: value 2 is not an integer in [0, 1] (Discrete(2))"));
  EXPECT_FALSE(fs::exists(partial));  // the episode written before the bad row is gone too
}

#endif  // RLZOO_WITH_HDF5

}  // namespace
}  // namespace rlzoo::data
