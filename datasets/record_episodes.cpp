#include "datasets/record_episodes.h"

#include <cstdlib>
#include <fmt/format.h>
#include <map>
#include <mutex>
#include <spdlog/spdlog.h>

#include "datasets/dataset_writer.h"
#include "core/checkpoint/manifest.h"
#include "core/env/env_purpose.h"
#include "core/wrappers/wrapper_list.h"

namespace rlzoo::data {

namespace fs = std::filesystem;

// One dataset directory recorded into by this process: the writer every RecordEpisodes of that
// directory shares, and how many of them are alive.
class SharedRecording {
 public:
  SharedRecording(fs::path dir, std::string env_id, Space observation_space, Space action_space)
      : dir_(std::move(dir)),
        env_id_(std::move(env_id)),
        observation_space_(std::move(observation_space)),
        action_space_(std::move(action_space)) {}

  // Appends a finished episode, opening the writer first when none is open.
  void add(const EpisodeData& episode) {
    std::lock_guard lock(mutex_);
    if (!writer_) open();
    writer_->add(episode);
  }

  // Throws the UserError that opening the writer now would throw because of what dir_ holds:
  // checked when an env is made, so that a refused dir stops a run before it starts (and
  // checked again when the writer opens: something may have appeared in dir_ meanwhile).
  void check_openable() {
    std::lock_guard lock(mutex_);
    if (!writer_) check_dir(append_ || written_);
  }

  // Closes the writer (dataset.json written) when one is open; errors are logged.
  void close() noexcept {
    std::lock_guard lock(mutex_);
    if (!writer_) return;
    try {
      writer_->close();
    } catch (const std::exception& e) {
      spdlog::error("record_episodes: {}: the dataset could not be closed: {}", dir_.string(), e.what());
    }
    writer_.reset();
  }

  // Checks that another env may record into this directory too.
  void check_compatible(const Env& env, const fs::path& dir) const {
    if (env.id() == env_id_ && env.observation_space() == observation_space_ && env.action_space() == action_space_)
      return;
    throw UserError(fmt::format(
        "record_episodes: {} is already recording {} (observations {}, actions {}) in this process; an env {} "
        "(observations {}, actions {}) cannot record into the same dataset; give it another dir",
        dir.string(), env_id_, observation_space_.describe(), action_space_.describe(), env.id(),
        env.observation_space().describe(), env.action_space().describe()));
  }

  void set_append() {
    std::lock_guard lock(mutex_);
    append_ = true;
  }

  int users = 0;  // guarded by the table's mutex

 private:
  void check_dir(bool append) const {
    std::error_code ec;
    if (fs::exists(dir_ / kManifestName, ec)) {
      if (!append) {
        const DatasetInfo old = read_manifest(dir_);
        throw UserError(fmt::format(
            "record_episodes: {} already holds a dataset ({} episodes, {} steps of {}); add append: true to the "
            "wrapper's arguments ({{record_episodes: {{dir: {}, append: true}}}}) to add to it, or choose another "
            "dir",
            dir_.string(), old.episodes, old.steps, old.env.empty() ? "an unnamed env" : old.env, dir_.string()));
      }
    } else if (fs::is_directory(dir_, ec) && !fs::is_empty(dir_, ec)) {
      throw UserError(fmt::format("record_episodes: {} is not empty and holds no {} (not an rlzoo dataset); choose "
                                  "a new or empty dir",
                                  dir_.string(), kManifestName));
    }
  }

  void open() {
    // This process's own dataset (written, then closed when its envs went away) is continued.
    const bool append = append_ || written_;
    check_dir(append);
    nlohmann::json source = {{"recorded_by", "record_episodes"},
                             {"env", env_id_},
                             {"created", checkpoint::utc_timestamp()},
                             {"rlzoo_version", RLZOO_VERSION}};
    WriterOptions options;
    options.append = append;
    writer_ = std::make_unique<DatasetWriter>(dir_, env_id_, observation_space_, action_space_, std::move(source),
                                              options);
    written_ = true;
  }

  std::mutex mutex_;  // guards everything below: envs on several threads finish episodes
  fs::path dir_;
  std::string env_id_;
  Space observation_space_, action_space_;
  std::unique_ptr<DatasetWriter> writer_;
  bool append_ = false;
  bool written_ = false;  // this process has opened a writer on dir_
};

namespace {

// dir (made absolute and canonical, so that two spellings of one directory share a writer)
// -> its recording. Never destroyed: envs may outlive static destruction; flush_recordings()
// runs at exit instead.
struct RecordingTable {
  std::mutex mutex;
  std::map<std::string, std::shared_ptr<SharedRecording>> recordings;
};

RecordingTable& table() {
  static RecordingTable* t = [] {
    auto* created = new RecordingTable;
    std::atexit([] { flush_recordings(); });
    return created;
  }();
  return *t;
}

fs::path key_of(const fs::path& dir) {
  std::error_code ec;
  fs::path p = fs::weakly_canonical(fs::absolute(dir, ec), ec);
  return ec ? fs::absolute(dir) : p;
}

std::shared_ptr<SharedRecording> acquire(const Env& env, const RecordEpisodesConfig& config) {
  const fs::path key = key_of(config.dir);
  RecordingTable& t = table();
  std::lock_guard lock(t.mutex);
  auto& slot = t.recordings[key.string()];
  if (!slot) {
    slot = std::make_shared<SharedRecording>(config.dir, env.id(), env.observation_space(), env.action_space());
  } else {
    slot->check_compatible(env, config.dir);
  }
  if (config.append) slot->set_append();
  slot->check_openable();
  slot->users += 1;
  return slot;
}

void release(const std::shared_ptr<SharedRecording>& recording) noexcept {
  RecordingTable& t = table();
  std::lock_guard lock(t.mutex);
  if (--recording->users == 0) recording->close();  // the entry stays: the dir is this process's now
}

}  // namespace

RecordEpisodes::RecordEpisodes(std::unique_ptr<Env> env, const RecordEpisodesConfig& config, bool active)
    : Wrapper(std::move(env)) {
  if (config.dir.empty()) throw UserError("record_episodes: dir is empty; give the dataset directory");
  if (!active) return;
  shared_ = acquire(inner(), config);
  // An episode up to the time limit fits without reallocating.
  const std::int64_t limit = unwrapped().max_episode_steps();
  if (limit > 0 && limit <= 100'000) {
    const auto steps = static_cast<std::size_t>(limit);
    episode_.observations.reserve(steps * observation_space().byte_size());
    episode_.actions.reserve(steps * action_space().byte_size());
    episode_.rewards.reserve(steps);
  }
}

RecordEpisodes::~RecordEpisodes() {
  if (shared_) release(shared_);  // an episode still in progress is dropped
}

void RecordEpisodes::do_reset(std::optional<std::uint64_t> seed, Bytes obs) {
  Wrapper::do_reset(seed, obs);
  if (!shared_) return;
  episode_.observations.assign(obs.begin(), obs.end());
  episode_.actions.clear();
  episode_.rewards.clear();
  episode_.final_observation.clear();
  episode_.terminated = episode_.truncated = false;
  in_progress_ = true;
}

StepResult RecordEpisodes::do_step(ConstBytes action, Bytes obs) {
  const StepResult r = Wrapper::do_step(action, obs);
  if (!in_progress_) return r;
  episode_.actions.insert(episode_.actions.end(), action.begin(), action.end());
  episode_.rewards.push_back(static_cast<float>(r.reward));
  if (!r.done()) {
    episode_.observations.insert(episode_.observations.end(), obs.begin(), obs.end());
    return r;
  }
  episode_.final_observation.assign(obs.begin(), obs.end());
  episode_.terminated = r.terminated;
  episode_.truncated = r.truncated;
  in_progress_ = false;
  shared_->add(episode_);
  return r;
}

void RecordEpisodes::do_load_state(const nlohmann::json& state, Bytes obs) {
  Wrapper::do_load_state(state, obs);
  in_progress_ = false;  // the restored episode's earlier steps are not known
}

void register_dataset_wrappers() {
  static std::once_flag once;
  std::call_once(once, [] {
    register_wrapper("record_episodes", [](std::unique_ptr<Env> env, const YAML::Node& args,
                                           const ConfigContext& ctx) -> std::unique_ptr<Env> {
      const auto config = parse_config<RecordEpisodesConfig>(args, ctx);
      if (config.dir.empty()) ctx.child("dir").fail(args["dir"], "expected a directory, got an empty string");
      try {
        return std::make_unique<RecordEpisodes>(std::move(env), config, env_purpose() == EnvPurpose::training);
      } catch (const UserError& e) {
        ctx.fail(args, e.what());  // with the preset's file, line and key
      }
    }, {"Appends every finished episode of the training envs to a dataset (docs/datasets.md, \"Recording training\")",
        document_config<RecordEpisodesConfig>()});
  });
}

void flush_recordings() noexcept {
  std::vector<std::shared_ptr<SharedRecording>> all;
  {
    RecordingTable& t = table();
    std::lock_guard lock(t.mutex);
    for (const auto& [key, recording] : t.recordings) all.push_back(recording);
  }
  for (const auto& recording : all) recording->close();
}

}  // namespace rlzoo::data
