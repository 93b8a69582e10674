// File-system steps that survive a crash or power cut (reliability.md section 7): data is
// fsync'ed before the name that points at it is published by rename, and the directory holding
// that name is fsync'ed after. Every function throws rlzoo::UserError naming the path and the
// OS error (strerror) when a step fails; none of them leaves a half-written file under the
// final name.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace rlzoo::durable {

// Creates `path` (which must not exist yet), writes `bytes`, fsyncs and closes it. The name is
// visible before the data is durable, so callers publish the file's directory by rename later.
void write_new_file(const std::filesystem::path& path, std::string_view bytes);

// Replaces (or creates) `path` atomically: writes `.<name>.tmp-<pid>-<n>` beside it, fsyncs,
// renames it over `path` and fsyncs the directory. Readers see the old or the new content,
// never a mix. The temp file is removed if a step fails.
void replace_file(const std::filesystem::path& path, std::string_view bytes);

// fsync on a directory, so that entries created/renamed/removed in it are durable.
// Filesystems that do not support it (EINVAL) are tolerated.
void sync_directory(const std::filesystem::path& dir);

// rename(2) with a UserError naming both paths. Atomic within one filesystem.
void rename_path(const std::filesystem::path& from, const std::filesystem::path& to);

// Swaps the two existing paths `a` and `b` (files or directories) in one atomic step
// (renameat2 with RENAME_EXCHANGE): nobody ever sees either name missing. Returns false, having
// changed nothing, when the filesystem or kernel cannot do it; throws UserError for other errors.
bool exchange_paths(const std::filesystem::path& a, const std::filesystem::path& b);

// Creates `dir` and its missing parents; each newly created entry is made durable by
// fsync'ing its parent. No-op when `dir` already is a directory.
void create_directories(const std::filesystem::path& dir);

// Removes `path` recursively, best effort: returns false (and leaves what it could not remove)
// instead of throwing, because it runs on clean-up paths.
bool remove_all_quietly(const std::filesystem::path& path) noexcept;

// Whole file contents. Throws UserError naming the path when it cannot be opened or read.
std::string read_file(const std::filesystem::path& path);

// A name `.<base>.<tag>-<pid>-<n>` unique within this process (n counts up), for temp and
// moved-aside entries. Does not touch the file system.
std::string hidden_sibling_name(std::string_view base, std::string_view tag);

// "<what> <path>: <strerror(err)>" as a UserError.
[[noreturn]] void throw_os_error(std::string_view what, const std::filesystem::path& path, int err);

}  // namespace rlzoo::durable
