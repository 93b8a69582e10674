// dataset.json, the manifest of an rlzoo dataset directory (docs/datasets.md): the env, the
// spaces, where the data came from, and the episodes' chunk files, returns and lengths.
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/spaces/space.h"

namespace rlzoo::data {

inline constexpr const char* kFormatName = "rlzoo-dataset";
inline constexpr int kFormatVersion = 1;
inline constexpr const char* kManifestName = "dataset.json";

struct ChunkInfo {
  std::string file;  // name inside the dataset directory, e.g. "chunk-000000.rlzd"
  std::int64_t episodes = 0;
  std::int64_t steps = 0;
};

// Everything dataset.json says, plus the directory it was read from.
struct DatasetInfo {
  std::filesystem::path dir;
  std::string env;  // registered env id, or "" when unknown (or mixed, after a merge)
  Space observation_space, action_space;
  nlohmann::json source = nlohmann::json::object();  // free-form: how the data was made
  std::int64_t episodes = 0;
  std::int64_t steps = 0;
  std::vector<ChunkInfo> chunks;
  std::vector<double> returns;        // per episode, undiscounted
  std::vector<std::int64_t> lengths;  // per episode, in steps
};

// "chunk-000007.rlzd"
std::string chunk_file_name(std::size_t index);

nlohmann::json manifest_to_json(const DatasetInfo& info);

// Reads and validates <dir>/dataset.json: format name, version (newer than kFormatVersion is
// refused), spaces, and counts that agree (chunks sum to episodes and steps, one return and
// length per episode, lengths sum to steps). Throws UserError naming the file.
DatasetInfo read_manifest(const std::filesystem::path& dir);

// Writes <info.dir>/dataset.json atomically (temp file, fsync, rename, fsync directory).
void write_manifest(const DatasetInfo& info);

// Makes `dir` ready for a new dataset: creates it, or checks that it is empty. With
// `overwrite`, an existing dataset's files (dataset.json first, then chunk-*.rlzd) are
// removed; other files are left alone. Throws UserError naming the directory otherwise.
// Returns true when it created the directory.
bool prepare_output_dir(const std::filesystem::path& dir, bool overwrite);

}  // namespace rlzoo::data
