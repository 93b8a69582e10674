#include "core/checkpoint/writer.h"

#include <sys/stat.h>

#include <cerrno>
#include <system_error>

#include <fmt/format.h>

#include "core/checkpoint/durable_io.h"
#include "core/checkpoint/manifest.h"
#include "core/common/crc32c.h"
#include "core/common/error.h"

namespace rlzoo {

namespace fs = std::filesystem;

namespace {

nlohmann::json checked_metadata(nlohmann::json metadata) {
  if (metadata.is_null()) return nlohmann::json::object();
  if (!metadata.is_object())
    throw UserError(fmt::format("checkpoint metadata must be a JSON object, got {}", metadata.type_name()));
  return metadata;
}

// "ckpt/" -> "ckpt", "a/./b" -> "a/b": the last component names the checkpoint.
fs::path normalized_target(const fs::path& final_dir) {
  fs::path p = final_dir.lexically_normal();
  if (!p.has_filename()) p = p.parent_path();
  return p;
}

}  // namespace

CheckpointWriter::CheckpointWriter(nlohmann::json metadata) : metadata_(checked_metadata(std::move(metadata))) {}

void CheckpointWriter::set_metadata(nlohmann::json metadata) { metadata_ = checked_metadata(std::move(metadata)); }

void CheckpointWriter::add(std::string name, std::string bytes) {
  if (const std::string why = checkpoint::invalid_file_name_reason(name); !why.empty())
    throw UserError(fmt::format("invalid checkpoint file name '{}': {}", name, why));
  if (has(name)) throw UserError(fmt::format("checkpoint file '{}' was added twice", name));
  files_.emplace(std::move(name), std::move(bytes));
}

void CheckpointWriter::add_json(std::string name, const nlohmann::json& value) {
  add(std::move(name), value.dump(2) + "\n");
}

std::size_t CheckpointWriter::total_bytes() const {
  std::size_t total = 0;
  for (const auto& [name, bytes] : files_) total += bytes.size();
  return total;
}

void CheckpointWriter::commit(const fs::path& final_dir_arg) const {
  const fs::path final_dir = normalized_target(final_dir_arg);
  const std::string name = final_dir.filename().string();
  if (name.empty() || name == "." || name == "..")
    throw UserError(fmt::format("cannot commit a checkpoint to '{}': the path must end in a directory name",
                                final_dir_arg.string()));
  const fs::path parent = final_dir.has_parent_path() ? final_dir.parent_path() : fs::path(".");
  durable::create_directories(parent);

  std::error_code ec;
  const fs::file_status existing = fs::symlink_status(final_dir, ec);
  const bool replacing = fs::exists(existing);
  if (replacing && !fs::is_directory(existing))
    throw UserError(fmt::format("cannot commit a checkpoint to {}: it exists and is not a directory",
                                final_dir.string()));

  const auto stage = [this](CommitStage s) {
    if (fault_hook_) fault_hook_(s);
  };

  // 1. Everything goes into a hidden temp directory in the same parent (rename is atomic only
  //    within one filesystem). Nothing under final_dir changes until step 2.
  const fs::path temp = parent / durable::hidden_sibling_name(name, "tmp");
  if (::mkdir(temp.c_str(), 0755) != 0) durable::throw_os_error("cannot create directory", temp, errno);
  try {
    nlohmann::json files = nlohmann::json::object();
    for (const auto& [file, bytes] : files_) {
      durable::write_new_file(temp / file, bytes);
      files[file] = {{"size", bytes.size()}, {"crc32c", checkpoint::format_crc(crc32c(bytes.data(), bytes.size()))}};
    }
    stage(CommitStage::kFilesWritten);
    const nlohmann::json manifest = {
        {"format_version", checkpoint::kFormatVersion},
        {"rlzoo_version", RLZOO_VERSION},
        {"created_at", checkpoint::utc_timestamp()},
        {"metadata", metadata_},
        {"files", std::move(files)},
    };
    // The manifest is last: its presence marks the directory complete.
    durable::write_new_file(temp / checkpoint::kManifestName, manifest.dump(2) + "\n");
    durable::sync_directory(temp);
    stage(CommitStage::kBeforeRename);
  } catch (...) {
    durable::remove_all_quietly(temp);
    throw;
  }

  // 2. Publish. A non-empty directory cannot be renamed over: an existing one is exchanged with
  //    the new one in one step, or, where the filesystem cannot, moved aside first.
  if (replacing && rename_exchange_) {
    bool exchanged = false;
    try {
      exchanged = durable::exchange_paths(temp, final_dir);
    } catch (...) {
      durable::remove_all_quietly(temp);
      throw;
    }
    if (exchanged) {
      durable::sync_directory(parent);
      durable::remove_all_quietly(temp);  // the old checkpoint; a leftover is cleaned later
      return;
    }
  }
  fs::path aside;
  if (replacing) {
    aside = parent / durable::hidden_sibling_name(name, "old");
    try {
      durable::rename_path(final_dir, aside);
    } catch (...) {
      durable::remove_all_quietly(temp);
      throw;
    }
  }
  try {
    if (replacing) stage(CommitStage::kOldMovedAside);
    durable::rename_path(temp, final_dir);
  } catch (...) {
    if (replacing) ::rename(aside.c_str(), final_dir.c_str());  // best effort: put the old one back
    durable::remove_all_quietly(temp);
    throw;
  }
  durable::sync_directory(parent);
  // A failure here only leaves a hidden directory that CheckpointManager cleans later.
  if (replacing) durable::remove_all_quietly(aside);
}

}  // namespace rlzoo
