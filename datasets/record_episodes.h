// record_episodes: a wrapper that appends every finished episode of the env it wraps to a
// dataset (docs/datasets.md, "Recording training"). With it in a preset's wrapper list, a
// training run leaves behind the data its agent saw while it learned (D4RL's "medium-replay"):
//
//   env_kwargs: {wrappers: [{record_episodes: {dir: runs/datasets/raw/hopper-training}}]}
//   rlzoo train --preset configs/ppo/Hopper-v4.yaml --set 'env_kwargs.wrappers=[{record_episodes:
//     {dir: runs/datasets/raw/hopper-training}}]'           (one argument, on one line)
//
// * Recorded: the observations as they are at the wrapper's place in the list (first in the
//   list: the env's own, raw), the actions taken, the rewards (as float32), the final
//   observation and how the episode ended. An episode is written when it ends (terminated or
//   truncated); one that is still running when its env is destroyed, reset early or loaded
//   from a checkpoint (its start is not known) is dropped.
// * Every env of this process recording into the same dir (n_envs copies, actor threads)
//   shares one DatasetWriter: a process-wide table dir -> writer, its writes under a mutex.
//   The writer is opened at the first finished episode and closed (dataset.json written) when
//   the last env using it is destroyed, or at process exit when still open
//   (flush_recordings()). A dir that this process has written is appended to when it is
//   opened again.
// * A dir that already holds a dataset this process did not write is refused (a UserError,
//   when the env is made, and again when the writer opens) unless `append: true`, which adds
//   the new episodes to it (same env and spaces). A non-empty dir without a dataset is refused.
// * Only training envs record: envs made while an evaluation is under way
//   (EnvPurpose::evaluation, core/env/env_purpose.h: Agent::evaluate, `rlzoo eval`, `rlzoo
//   dataset collect`) get an inert wrapper that records nothing, opens nothing and checks
//   nothing. Load an agent whose preset records, for evaluation, inside such a scope too: the
//   training envs it restores would otherwise check dir.
#pragma once

#include <filesystem>
#include <memory>

#include "datasets/episode.h"
#include "core/config/schema.h"
#include "core/wrappers/wrapper.h"

namespace rlzoo::data {

// The wrapper's arguments in a wrapper list.
struct RecordEpisodesConfig {
  std::string dir;      // dataset directory
  bool append = false;  // add to a dataset already in dir
  static void describe(Fields<RecordEpisodesConfig>& f) {
    f("dir", &RecordEpisodesConfig::dir, "dataset directory the finished episodes go to", Required{});
    f("append", &RecordEpisodesConfig::append,
      "add to the dataset already in dir (without it, a dir holding a dataset is refused)");
  }
};

class SharedRecording;

class RecordEpisodes : public Wrapper {
 public:
  // active = false: the inert wrapper of an evaluation env (records nothing, opens nothing).
  // Throws UserError when dir is empty, holds a dataset that may not be added to (see above),
  // or is already recording in this process an env of another id or other spaces.
  RecordEpisodes(std::unique_ptr<Env> env, const RecordEpisodesConfig& config, bool active = true);
  ~RecordEpisodes() override;

  bool active() const { return shared_ != nullptr; }

 protected:
  void do_reset(std::optional<std::uint64_t> seed, Bytes obs) override;
  // Throws UserError when the episode that ends cannot be written (a refused dir, a full disk).
  StepResult do_step(ConstBytes action, Bytes obs) override;
  void do_load_state(const nlohmann::json& state, Bytes obs) override;

 private:
  std::shared_ptr<SharedRecording> shared_;
  EpisodeData episode_;      // the episode so far; its buffers are reused
  bool in_progress_ = false;  // episode_ holds an episode from its reset on
};

// Adds record_episodes to the wrapper list (core/wrappers/wrapper_list.h). Call once at
// start-up beside register_builtin_envs() (apps/main.cpp; register_builtin_algorithms()
// calls it too); calling it again does nothing.
void register_dataset_wrappers();

// Closes every recording writer still open (each dataset.json written); a later finished
// episode reopens its dataset and appends. Runs at process exit; errors are logged.
void flush_recordings() noexcept;

}  // namespace rlzoo::data
