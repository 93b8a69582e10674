// A run's checkpoint folder:
//
//   <root>/ckpt_000000001000/   one CheckpointWriter directory per saved step
//   <root>/ckpt_000000002000/
//   <root>/latest               text "ckpt_000000002000\n", replaced atomically after each save
//
// Hidden entries (`.ckpt_*.tmp-*`, `.ckpt_*.old-*`, `.latest.tmp-*`) are left-overs of a crash
// inside a save; they are never read and are deleted at the next save. One manager (one
// process) per root at a time: a second one would delete the first one's temp directories.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/checkpoint/reader.h"
#include "core/checkpoint/writer.h"

namespace rlzoo {

// The result of CheckpointManager::latest().
struct LatestCheckpoint {
  std::optional<CheckpointReader> reader;  // opened and validated; nullopt when none is valid
  std::int64_t step = -1;                  // its step, -1 when none
  // One line per checkpoint that was skipped and why (corrupt, unfinished, bad pointer), newest
  // first. Also logged with spdlog::warn.
  std::vector<std::string> warnings;
};

class CheckpointManager {
 public:
  // `keep_last` >= 1 (else UserError): how many checkpoints save() keeps. The root is created
  // by the first save().
  explicit CheckpointManager(std::filesystem::path root, int keep_last = 3);

  const std::filesystem::path& root() const { return root_; }
  int keep_last() const { return keep_last_; }

  // "ckpt_" + step zero-padded to 12 digits (more digits beyond 10^12).
  static std::string dir_name(std::int64_t step);
  std::filesystem::path dir_for(std::int64_t step) const { return root_ / dir_name(step); }

  // Commits `writer` to <root>/ckpt_<step> (replacing an existing one of that step), then points
  // `latest` at it, then deletes older checkpoints beyond keep_last and crash left-overs.
  // Checkpoints of a higher step than `step` (from a run that was rolled back to an older
  // checkpoint) are left in place with a warning and do not count towards keep_last.
  // Returns the new directory. Throws UserError (step < 0, or an I/O error naming the path);
  // the previous checkpoints are then untouched.
  std::filesystem::path save(std::int64_t step, const CheckpointWriter& writer);

  // The checkpoint to resume from: the one `latest` points at if it validates, otherwise the
  // newest (highest step) other one that validates. Never throws for a corrupt checkpoint
  // (that becomes a warning); an empty or missing root gives a result without reader.
  LatestCheckpoint latest() const;

  // Steps of the `ckpt_<digits>` directories in root, ascending. Not validated.
  std::vector<std::int64_t> steps() const;

  // The directory name in `latest`, or nullopt if the file is missing or unreadable.
  std::optional<std::string> pointer() const;

 private:
  void remove_crash_leftovers() const;
  void rotate(std::int64_t saved_step) const;

  std::filesystem::path root_;
  int keep_last_;
};

}  // namespace rlzoo
