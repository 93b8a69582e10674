#include "datasets/merge.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <fmt/format.h>

#include "datasets/manifest.h"
#include "core/checkpoint/durable_io.h"
#include "core/checkpoint/manifest.h"

namespace rlzoo::data {

namespace fs = std::filesystem;

namespace {

// Copies `from` to the new file `to` (which must not exist) and fsyncs it.
void copy_durably(const fs::path& from, const fs::path& to) {
  std::error_code ec;
  fs::copy_file(from, to, fs::copy_options::none, ec);
  if (ec) throw UserError(fmt::format("cannot copy {} to {}: {}", from.string(), to.string(), ec.message()));
  const int fd = ::open(to.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) durable::throw_os_error("cannot open", to, errno);
  const int rc = ::fsync(fd);
  const int err = errno;
  ::close(fd);
  if (rc != 0) durable::throw_os_error("cannot fsync", to, err);
}

bool same_path(const fs::path& a, const fs::path& b) {
  std::error_code ec;
  return fs::equivalent(a, b, ec);
}

}  // namespace

void merge_datasets(const fs::path& out, const std::vector<fs::path>& inputs, const MergeOptions& options) {
  if (inputs.empty()) throw UserError("merge: no input datasets");
  std::vector<DatasetInfo> infos;
  for (const auto& in : inputs) {
    if (same_path(in, out))
      throw UserError(fmt::format("merge: the output {} is also an input; write the merge elsewhere", out.string()));
    infos.push_back(read_manifest(in));
  }
  const DatasetInfo& first = infos.front();
  for (std::size_t i = 1; i < infos.size(); ++i) {
    const DatasetInfo& d = infos[i];
    if (!(d.observation_space == first.observation_space))
      throw UserError(fmt::format("merge: {} has observation space {}, but {} has {}", inputs[i].string(),
                                  d.observation_space.describe(), inputs[0].string(),
                                  first.observation_space.describe()));
    if (!(d.action_space == first.action_space))
      throw UserError(fmt::format("merge: {} has action space {}, but {} has {}", inputs[i].string(),
                                  d.action_space.describe(), inputs[0].string(), first.action_space.describe()));
  }

  DatasetInfo merged;
  merged.dir = out;
  merged.env = first.env;
  merged.observation_space = first.observation_space;
  merged.action_space = first.action_space;
  merged.source = options.source.is_object() ? options.source : nlohmann::json::object();
  merged.source["created"] = checkpoint::utc_timestamp();
  nlohmann::json sources = nlohmann::json::array();
  for (std::size_t i = 0; i < infos.size(); ++i) {
    const DatasetInfo& d = infos[i];
    if (d.env != first.env) merged.env = "";
    std::error_code ec;
    const fs::path absolute = fs::absolute(inputs[i], ec);
    sources.push_back({{"path", (ec ? inputs[i] : absolute).string()},
                       {"env", d.env},
                       {"episodes", d.episodes},
                       {"steps", d.steps},
                       {"source", d.source}});
  }
  merged.source["inputs"] = std::move(sources);

  prepare_output_dir(out, options.overwrite);
  for (const DatasetInfo& d : infos) {
    for (const ChunkInfo& c : d.chunks) {
      ChunkInfo copy = c;
      copy.file = chunk_file_name(merged.chunks.size());
      copy_durably(d.dir / c.file, out / copy.file);
      merged.chunks.push_back(std::move(copy));
    }
    merged.episodes += d.episodes;
    merged.steps += d.steps;
    merged.returns.insert(merged.returns.end(), d.returns.begin(), d.returns.end());
    merged.lengths.insert(merged.lengths.end(), d.lengths.begin(), d.lengths.end());
  }
  durable::sync_directory(out);
  write_manifest(merged);
}

}  // namespace rlzoo::data
