#include "datasets/slice.h"

#include <fmt/format.h>

#include "datasets/dataset_reader.h"
#include "core/checkpoint/manifest.h"

namespace rlzoo::data {

namespace fs = std::filesystem;

const char* slice_by_name(SliceBy by) {
  switch (by) {
    case SliceBy::first_steps: return "first_steps";
    case SliceBy::first_episodes: return "first_episodes";
    case SliceBy::last_episodes: return "last_episodes";
  }
  RLZOO_CHECK(false, "unknown SliceBy value");
}

std::pair<std::int64_t, std::int64_t> slice_range(const std::vector<std::int64_t>& lengths, SliceBy by,
                                                  std::int64_t n) {
  if (n < 1) throw UserError(fmt::format("slice: {} must be >= 1, got {}", slice_by_name(by), n));
  const auto episodes = static_cast<std::int64_t>(lengths.size());
  if (episodes == 0) throw UserError("slice: the dataset has no episodes");
  switch (by) {
    case SliceBy::first_episodes: return {0, std::min(n, episodes)};
    case SliceBy::last_episodes: return {episodes - std::min(n, episodes), episodes};
    case SliceBy::first_steps: {
      std::int64_t end = 0, steps = 0;
      while (end < episodes && steps + lengths[static_cast<std::size_t>(end)] <= n) steps += lengths[static_cast<std::size_t>(end++)];
      if (end == 0)
        throw UserError(fmt::format("slice: first_steps {}: the first episode alone has {} steps; nothing would be "
                                    "kept",
                                    n, lengths.front()));
      return {0, end};
    }
  }
  RLZOO_CHECK(false, "unknown SliceBy value");
}

DatasetInfo slice_dataset(const fs::path& in, const fs::path& out, const SliceOptions& options) {
  std::error_code ec;
  if (fs::equivalent(in, out, ec))
    throw UserError(fmt::format("slice: the output {} is the input; write the slice elsewhere", out.string()));
  const DatasetReader reader(in);
  const DatasetInfo& from = reader.info();
  const auto [begin, end] = slice_range(from.lengths, options.by, options.n);

  nlohmann::json source = options.source.is_object() ? options.source : nlohmann::json::object();
  source["created"] = checkpoint::utc_timestamp();
  const fs::path absolute = fs::absolute(in, ec);
  source["sliced_from"] = {{"path", (ec ? in : absolute).string()},
                           {"env", from.env},
                           {"episodes", from.episodes},
                           {"steps", from.steps},
                           {"source", from.source}};
  source["slice"] = {{"by", slice_by_name(options.by)}, {"n", options.n}, {"first_episode", begin},
                     {"episodes", end - begin}};
  WriterOptions writer_options = options.writer;
  writer_options.append = false;
  DatasetWriter writer(out, from.env, from.observation_space, from.action_space, std::move(source), writer_options);
  try {
    reader.for_each_in(begin, end, [&](std::int64_t, EpisodeData&& e) { writer.add(e); });
    writer.close();
  } catch (...) {
    writer.abandon();
    throw;
  }
  return writer.info();
}

}  // namespace rlzoo::data
