// The record_episodes wrapper: envs sharing a dir write the episodes they finished into one
// dataset, byte for byte as the stepping code saw them; episodes in progress are dropped; the
// manifest appears when the last env goes; evaluation envs record nothing; a dataset already
// in dir is refused without append and grown with it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <thread>

#include "datasets/dataset_reader.h"
#include "datasets/dataset_writer.h"
#include "datasets/record_episodes.h"
#include "core/common/rng.h"
#include "core/env/env_purpose.h"
#include "core/registry/env_registry.h"
#include "envs/builtin.h"
#include "tests/datasets/episode_fixtures.h"
#include "tests/support/test_paths.h"

namespace rlzoo::data {
namespace {

using ::testing::HasSubstr;
namespace fs = std::filesystem;

fs::path fresh(const std::string& name) { return fs::path(test::make_temp_dir("rlzoo-record")) / name; }

std::string wrappers(const fs::path& dir, const std::string& extra = "") {
  return "{wrappers: [{record_episodes: {dir: '" + dir.string() + "'" + extra + "}}]}";
}

// A CartPole env made with `kwargs`, stepped with seeded random actions. It keeps its own copy
// of every episode it finished, as the stepping code saw it, to compare with the dataset.
struct Driver {
  std::unique_ptr<Env> env;
  Rng rng;
  std::vector<std::byte> obs;
  EpisodeData current;
  std::vector<EpisodeData> finished;

  Driver(const std::string& kwargs, std::uint64_t seed) : rng(seed) {
    register_builtin_envs();
    register_dataset_wrappers();
    env = make_env("CartPole-v1", YAML::Load(kwargs));
    obs.resize(env->observation_space().byte_size());
    reset(seed);
  }
  void reset(std::optional<std::uint64_t> seed) {
    env->reset(seed, obs);
    current = EpisodeData{};
    current.observations = obs;
  }
  // One step with a random action; true when it ended an episode (the next one is started).
  bool step() {
    const auto action = static_cast<std::int64_t>(rng.below(2));
    const StepResult r = env->step(action, obs);
    const auto* a = reinterpret_cast<const std::byte*>(&action);
    current.actions.insert(current.actions.end(), a, a + sizeof action);
    current.rewards.push_back(static_cast<float>(r.reward));
    if (!r.done()) {
      current.observations.insert(current.observations.end(), obs.begin(), obs.end());
      return false;
    }
    current.final_observation = obs;
    current.terminated = r.terminated;
    current.truncated = r.truncated;
    finished.push_back(current);
    reset(std::nullopt);
    return true;
  }
  void run_episodes(int n) {
    for (int done = 0; done < n;) done += step() ? 1 : 0;
  }
};

void expect_same(const EpisodeData& a, const EpisodeData& b, std::size_t index) {
  fixtures::expect_same(a, b, static_cast<std::int64_t>(index));
}

void expect_dataset(const fs::path& dir, const std::vector<EpisodeData>& expected) {
  const auto got = DatasetReader(dir).read_all();
  ASSERT_EQ(got.size(), expected.size());
  for (std::size_t i = 0; i < got.size(); ++i) expect_same(got[i], expected[i], i);
}

TEST(RecordEpisodes, EnvsSharingADirWriteTheirFinishedEpisodesIntoOneDataset) {
  const fs::path dir = fresh("rec");
  auto a = std::make_unique<Driver>(wrappers(dir), 1);
  auto b = std::make_unique<Driver>(wrappers(dir), 2);
  std::vector<EpisodeData> expected;  // in the order the episodes ended
  while (a->finished.size() < 3 || b->finished.size() < 2) {
    for (int i = 0; i < 2 && a->finished.size() < 3; ++i)
      if (a->step()) expected.push_back(a->finished.back());
    if (b->finished.size() < 2 && b->step()) expected.push_back(b->finished.back());
  }
  // Both are in the middle of an episode now (CartPole's shortest random episodes take ~8 steps).
  for (int i = 0; i < 3; ++i) {
    ASSERT_FALSE(a->step());
    ASSERT_FALSE(b->step());
  }
  EXPECT_TRUE(fs::exists(dir));  // opened at the first finished episode
  a.reset();
  EXPECT_FALSE(fs::exists(dir / "dataset.json"));  // b still records
  b.reset();
  ASSERT_TRUE(fs::exists(dir / "dataset.json"));

  expect_dataset(dir, expected);
  const DatasetInfo info = read_manifest(dir);
  EXPECT_EQ(info.env, "CartPole-v1");
  EXPECT_EQ(info.episodes, 5);
  EXPECT_EQ(info.source["recorded_by"], "record_episodes");
  EXPECT_EQ(info.source["env"], "CartPole-v1");
  EXPECT_TRUE(info.source.contains("created"));
  EXPECT_EQ(info.chunks.size(), 1u);
}

TEST(RecordEpisodes, EnvsSteppedOnManyThreadsLoseNoEpisode) {
  const fs::path dir = fresh("threads");
  std::vector<std::unique_ptr<Driver>> drivers;
  for (std::uint64_t i = 0; i < 4; ++i) drivers.push_back(std::make_unique<Driver>(wrappers(dir), 10 + i));
  std::vector<std::thread> threads;
  for (auto& d : drivers)
    threads.emplace_back([&d] {
      d->run_episodes(6);
      for (int i = 0; i < 2; ++i) d->step();  // and one more in progress, dropped
    });
  for (auto& t : threads) t.join();
  std::vector<std::string> expected;
  for (const auto& d : drivers)
    for (const auto& e : d->finished) expected.push_back(encode_episode(e));
  drivers.clear();

  std::vector<std::string> got;
  DatasetReader(dir).for_each([&](std::int64_t, EpisodeData&& e) { got.push_back(encode_episode(e)); });
  ASSERT_EQ(got.size(), 24u);
  std::sort(got.begin(), got.end());
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(got, expected);  // the order across threads is the threads', the episodes exact
}

TEST(RecordEpisodes, EvaluationEnvsRecordNothing) {
  const fs::path dir = fresh("eval");
  {
    const EnvPurposeScope evaluation(EnvPurpose::evaluation);
    Driver d(wrappers(dir), 3);
    const auto* w = find_in_chain<RecordEpisodes>(*d.env);
    ASSERT_NE(w, nullptr);  // present, so that saved env states keep their shape
    EXPECT_FALSE(w->active());
    d.run_episodes(2);
  }
  EXPECT_FALSE(fs::exists(dir));
  EXPECT_EQ(env_purpose(), EnvPurpose::training);  // the scope ended
  Driver d(wrappers(dir), 3);
  EXPECT_TRUE(find_in_chain<RecordEpisodes>(*d.env)->active());
}

TEST(RecordEpisodes, ADatasetAlreadyThereIsRefusedWithoutAppendAndGrownWithIt) {
  const fs::path dir = fresh("old");
  std::vector<EpisodeData> expected;
  {
    Driver plain("{}", 4);
    plain.run_episodes(2);
    DatasetWriter w(dir, "CartPole-v1", plain.env->observation_space(), plain.env->action_space(),
                    {{"made_by", "record_episodes_test"}});
    for (const auto& e : plain.finished) w.add(e);
    w.close();
    expected = plain.finished;
  }
  // Refused when the env is made, before anything runs, naming the preset's key.
  const std::string error = test::error_of([&] {
    make_env("CartPole-v1", YAML::Load(wrappers(dir)), ConfigContext("p.yaml").child("env_kwargs"));
  });
  EXPECT_THAT(error, HasSubstr("p.yaml:1:"));
  EXPECT_THAT(error, HasSubstr("key 'env_kwargs.wrappers[0].record_episodes'"));
  EXPECT_THAT(error, HasSubstr("record_episodes: " + dir.string() + " already holds a dataset (2 episodes, "));
  EXPECT_THAT(error, HasSubstr("append: true"));
  expect_dataset(dir, expected);  // untouched
  {
    // And when the writer opens: a dataset that appeared after the env was made.
    const fs::path later = fresh("later");
    Driver d(wrappers(later), 5);
    DatasetWriter(later, "CartPole-v1", d.env->observation_space(), d.env->action_space(), nullptr).close();
    EXPECT_THAT(test::error_of([&] { d.run_episodes(1); }),
                HasSubstr("record_episodes: " + later.string() + " already holds a dataset (0 episodes"));
  }

  {
    Driver appending(wrappers(dir, ", append: true"), 6);
    appending.run_episodes(3);
    appending.step();
    expected.insert(expected.end(), appending.finished.begin(), appending.finished.end());
  }
  expect_dataset(dir, expected);
  const DatasetInfo info = read_manifest(dir);
  EXPECT_EQ(info.source["made_by"], "record_episodes_test");  // the dataset's own source stays
  ASSERT_EQ(info.source["appends"].size(), 1u);
  EXPECT_EQ(info.source["appends"][0]["recorded_by"], "record_episodes");
  EXPECT_EQ(info.chunks.size(), 2u);  // the old chunk is left as it was

  const fs::path junk = fresh("junk");
  fs::create_directories(junk);
  std::ofstream(junk / "notes.txt") << "mine";
  EXPECT_THAT(test::error_of([&] { Driver d(wrappers(junk, ", append: true"), 7); }),
              HasSubstr(junk.string() + " is not empty and holds no dataset.json"));
  const EnvPurposeScope evaluation(EnvPurpose::evaluation);
  Driver inert(wrappers(junk), 7);  // evaluation envs check nothing
}

TEST(RecordEpisodes, AProcessContinuesItsOwnDatasetAndFlushesIt) {
  const fs::path dir = fresh("own");
  std::vector<EpisodeData> expected;
  {
    Driver d(wrappers(dir), 8);
    d.run_episodes(2);
    flush_recordings();  // readable while the env lives on
    EXPECT_EQ(read_manifest(dir).episodes, 2);
    d.run_episodes(1);
    expected = d.finished;
  }
  EXPECT_EQ(read_manifest(dir).episodes, 3);
  {
    // Written by this process (not refused, no append needed), e.g. envs made again later.
    Driver d(wrappers(dir), 9);
    d.run_episodes(1);
    expected.push_back(d.finished.back());
  }
  expect_dataset(dir, expected);
}

TEST(RecordEpisodes, AnEpisodeRestoredFromAStateIsDropped) {
  const fs::path dir = fresh("state");
  Driver d(wrappers(dir), 11);
  for (int i = 0; i < 3; ++i) ASSERT_FALSE(d.step());
  const auto state = d.env->save_state();
  d.reset(std::nullopt);  // an episode abandoned by an early reset: dropped too

  Driver e(wrappers(dir), 12);
  e.env->load_state(state, e.obs);
  while (!e.env->step(std::int64_t{0}, e.obs).done()) {
  }
  e.reset(std::nullopt);
  e.run_episodes(1);
  d.run_episodes(1);
  e.env.reset();
  d.env.reset();
  expect_dataset(dir, {e.finished.back(), d.finished.back()});
}

TEST(RecordEpisodes, BadArgumentsAndMismatchedEnvsAreErrors) {
  register_builtin_envs();
  register_dataset_wrappers();
  auto error = [](const std::string& id, const std::string& kwargs) {
    return test::error_of([&] { make_env(id, YAML::Load(kwargs), ConfigContext("p.yaml").child("env_kwargs")); });
  };
  EXPECT_THAT(error("CartPole-v1", "{wrappers: [record_episodes]}"), HasSubstr("dir"));
  EXPECT_THAT(error("CartPole-v1", "{wrappers: [{record_episodes: {dir: x, apend: true}}]}"), HasSubstr("apend"));
  EXPECT_THAT(error("CartPole-v1", "{wrappers: [{record_episodes: {dir: ''}}]}"), HasSubstr("empty"));

  const fs::path dir = fresh("mixed");
  auto cartpole = make_env("CartPole-v1", YAML::Load(wrappers(dir)));
  EXPECT_THAT(error("Acrobot-v1", wrappers(dir)),
              HasSubstr(dir.string() + " is already recording CartPole-v1"));
}

}  // namespace
}  // namespace rlzoo::data
