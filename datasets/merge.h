// Several datasets of the same spaces -> one, without decoding: chunk files are copied byte
// for byte and the manifests' lists concatenated (docs/datasets.md).
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <vector>

namespace rlzoo::data {

struct MergeOptions {
  // Write into a non-empty output directory (as WriterOptions::overwrite).
  bool overwrite = false;
  // Extra entries for the merged dataset's "source" (e.g. the command line); the merge adds
  // "created" and "inputs" (each input's path, env, counts and source).
  nlohmann::json source = nlohmann::json::object();
};

// Episodes of inputs[0], then inputs[1], ... into `out`. Every input must have the same
// observation and action spaces (the error names the first input that differs and how); the
// env id is kept when all inputs agree, else "". `out` may not be one of the inputs.
void merge_datasets(const std::filesystem::path& out, const std::vector<std::filesystem::path>& inputs,
                    const MergeOptions& options = {});

}  // namespace rlzoo::data
