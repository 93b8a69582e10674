// Builds a checkpoint directory (named files + manifest.json) in memory and commits it to disk
// crash-safely: after a crash at any point, `final_dir` holds either the previous complete
// checkpoint or the new complete one (with the one exception documented at commit()).
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace rlzoo {

// The points inside CheckpointWriter::commit() where a fault hook runs.
enum class CommitStage {
  kFilesWritten,     // every data file is written and fsync'ed in the temp directory
  kBeforeRename,     // manifest and temp directory fsync'ed; nothing published yet
  kOldMovedAside,    // only when final_dir existed and was not exchanged atomically (see
                     // use_rename_exchange): it has been renamed aside, the new one is not in
};

// Tests use a hook that throws at one stage to simulate a crash there. In production it is
// empty. The exception propagates out of commit() after the temp directory is removed (and,
// at kOldMovedAside, after the old checkpoint is moved back).
using CommitFaultHook = std::function<void(CommitStage)>;

class CheckpointWriter {
 public:
  // `metadata` must be a JSON object (or null, stored as {}); it is stored in the manifest and
  // returned by CheckpointReader::metadata(). Suggested keys: algo, env, step counters,
  // torch_version. Throws UserError if it is not an object.
  explicit CheckpointWriter(nlohmann::json metadata = nlohmann::json::object());

  // Adds a file. Throws UserError if the name is invalid (see checkpoint::
  // invalid_file_name_reason) or already added. The writer owns a copy of the bytes.
  void add(std::string name, std::string bytes);
  // Adds `value` serialised as indented JSON text.
  void add_json(std::string name, const nlohmann::json& value);

  void set_metadata(nlohmann::json metadata);
  const nlohmann::json& metadata() const { return metadata_; }
  bool has(std::string_view name) const { return files_.find(name) != files_.end(); }
  // The files added so far, by name (their bytes as they will be written).
  const std::map<std::string, std::string, std::less<>>& files() const { return files_; }
  std::size_t total_bytes() const;

  void set_fault_hook(CommitFaultHook hook) { fault_hook_ = std::move(hook); }
  // On (the default): an existing `final_dir` is replaced by swapping it with the new directory
  // in one renameat2(RENAME_EXCHANGE) call, so a crash at any moment leaves one of the two
  // complete under `final_dir`. Off, or on a filesystem without the call: the two-rename
  // fallback described at commit(). Tests turn it off to exercise the fallback.
  void use_rename_exchange(bool on) { rename_exchange_ = on; }

  // Writes every file into a temp directory `.<name>.tmp-<pid>-<n>` beside `final_dir`, fsyncs
  // each, writes manifest.json last, fsyncs it and the temp directory, renames the temp
  // directory to `final_dir` and fsyncs the parent (created if missing). The writer can be
  // committed again (to another directory).
  //
  // If `final_dir` exists, the temp directory and `final_dir` are exchanged atomically and the
  // old content (now under the temp name) is removed. Fallback where that call is unavailable:
  // `final_dir` is first renamed to `.<name>.old-<pid>-<n>` and removed only after the new
  // directory is in place. Window: a crash between those two renames (two syscalls, no data
  // written in between) leaves no `final_dir`; the previous checkpoint then survives only under
  // the hidden `.old-` name. CheckpointManager treats the step as missing (falls back to an
  // older checkpoint) and deletes the hidden directory at its next save.
  //
  // Throws UserError naming the path and OS error when a step fails; the temp directory is
  // removed and an existing `final_dir` is left as it was.
  void commit(const std::filesystem::path& final_dir) const;

 private:
  nlohmann::json metadata_;
  std::map<std::string, std::string, std::less<>> files_;
  CommitFaultHook fault_hook_;
  bool rename_exchange_ = true;
};

}  // namespace rlzoo
