// A prefix or suffix of a dataset's episodes as a new dataset (`rlzoo dataset slice`):
//
//   slice_dataset("runs/datasets/raw/hopper-training", "data/hopper-first-200k",
//                 {.by = SliceBy::first_steps, .n = 200'000});
//
// With a recording of one training run (record_episodes), first_steps gives the data the
// agent had seen "up to step N" (with one env; with n envs, N steps over all of them).
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <utility>

#include "datasets/dataset_writer.h"

namespace rlzoo::data {

enum class SliceBy {
  first_steps,     // the first episodes whose lengths sum to at most n
  first_episodes,  // the first n episodes
  last_episodes,   // the last n episodes
};

struct SliceOptions {
  SliceBy by = SliceBy::first_episodes;
  std::int64_t n = 0;  // steps or episodes, >= 1; more than the dataset has keeps all of it
  // overwrite: replace a dataset already in `out`; chunk_bytes as for any writer.
  WriterOptions writer;
  // Extra entries for the slice's "source" (e.g. the command line); the slice adds "created",
  // "sliced_from" (the input's path, env, counts and source) and "slice" ({by, n, episodes}).
  nlohmann::json source = nlohmann::json::object();
};

// "first_steps", "first_episodes", "last_episodes".
const char* slice_by_name(SliceBy by);

// The episodes [begin, end) that a slice of a dataset with these episode lengths keeps.
// Throws UserError when n < 1 or the slice would hold no episode (first_steps below the first
// episode's length, or an empty dataset).
std::pair<std::int64_t, std::int64_t> slice_range(const std::vector<std::int64_t>& lengths, SliceBy by,
                                                  std::int64_t n);

// Writes the slice of `in` into `out` (a new dataset: same env and spaces, episodes in order,
// re-encoded one at a time). `out` may not be `in`. Returns the new dataset's manifest.
DatasetInfo slice_dataset(const std::filesystem::path& in, const std::filesystem::path& out,
                          const SliceOptions& options);

}  // namespace rlzoo::data
