#include "datasets/manifest.h"

#include <algorithm>
#include <fmt/format.h>
#include <numeric>

#include "core/checkpoint/durable_io.h"
#include "core/common/strings.h"
#include "core/spaces/space_json.h"

namespace rlzoo::data {

namespace fs = std::filesystem;
using json = nlohmann::json;

std::string chunk_file_name(std::size_t index) { return fmt::format("chunk-{:06}.rlzd", index); }

json manifest_to_json(const DatasetInfo& info) {
  json chunks = json::array();
  for (const auto& c : info.chunks) chunks.push_back({{"file", c.file}, {"episodes", c.episodes}, {"steps", c.steps}});
  json j;
  j["format"] = kFormatName;
  j["version"] = kFormatVersion;
  j["env"] = info.env;
  j["observation_space"] = space_to_json(info.observation_space);
  j["action_space"] = space_to_json(info.action_space);
  j["source"] = info.source;
  j["episodes"] = info.episodes;
  j["steps"] = info.steps;
  j["chunks"] = std::move(chunks);
  j["returns"] = info.returns;
  j["lengths"] = info.lengths;
  return j;
}

namespace {

[[noreturn]] void fail(const fs::path& file, const std::string& what) {
  throw UserError(fmt::format("{}: {}", file.string(), what));
}

const json& member(const json& j, const char* key, const fs::path& file) {
  auto it = j.find(key);
  if (it == j.end()) fail(file, fmt::format("missing key '{}'", key));
  return *it;
}

std::int64_t count(const json& j, const char* key, const fs::path& file, const std::string& where = "") {
  const json& v = member(j, key, file);
  if (!v.is_number_integer() || v.get<std::int64_t>() < 0)
    fail(file, fmt::format("{}key '{}': expected a non-negative integer, got {}", where, key, v.dump()));
  return v.get<std::int64_t>();
}

}  // namespace

DatasetInfo read_manifest(const fs::path& dir) {
  const fs::path file = dir / kManifestName;
  if (!fs::exists(file)) {
    if (!fs::exists(dir)) throw UserError(fmt::format("{}: no such dataset directory", dir.string()));
    throw UserError(fmt::format("{}: no {}; not an rlzoo dataset (or its writer did not finish)", dir.string(),
                                kManifestName));
  }
  json j;
  try {
    j = json::parse(durable::read_file(file));
  } catch (const json::exception& e) {  // parse_error, and out_of_range for numbers too large
    fail(file, fmt::format("invalid JSON: {}", e.what()));
  }
  if (!j.is_object()) fail(file, "expected a JSON object");
  const json& format = member(j, "format", file);
  if (format != kFormatName) fail(file, fmt::format("format {} is not \"{}\"", format.dump(), kFormatName));
  const std::int64_t version = count(j, "version", file);
  if (version > kFormatVersion)
    fail(file, fmt::format("format version {} is newer than this rlzoo reads ({}); use a newer rlzoo", version,
                           kFormatVersion));
  if (version < 1) fail(file, fmt::format("format version {} is not valid (versions start at 1)", version));

  DatasetInfo info;
  info.dir = dir;
  const json& env = member(j, "env", file);
  if (!env.is_string()) fail(file, "key 'env': expected a string, got " + env.dump());
  info.env = env.get<std::string>();
  info.observation_space = space_from_json(member(j, "observation_space", file), file.string() + ": observation_space");
  info.action_space = space_from_json(member(j, "action_space", file), file.string() + ": action_space");
  if (auto it = j.find("source"); it != j.end()) info.source = *it;
  info.episodes = count(j, "episodes", file);
  info.steps = count(j, "steps", file);

  const json& chunks = member(j, "chunks", file);
  if (!chunks.is_array()) fail(file, "key 'chunks': expected a list, got " + chunks.dump());
  std::int64_t chunk_episodes = 0, chunk_steps = 0;
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    const std::string where = fmt::format("chunks[{}]: ", i);
    const json& c = chunks[i];
    if (!c.is_object()) fail(file, where + "expected {\"file\", \"episodes\", \"steps\"}, got " + c.dump());
    const json& name = member(c, "file", file);
    if (!name.is_string() || name.get<std::string>().empty() ||
        name.get<std::string>().find('/') != std::string::npos || name.get<std::string>()[0] == '.')
      fail(file, where + "key 'file': expected a file name inside the dataset directory, got " + name.dump());
    ChunkInfo chunk{name.get<std::string>(), count(c, "episodes", file, where), count(c, "steps", file, where)};
    chunk_episodes += chunk.episodes;
    chunk_steps += chunk.steps;
    info.chunks.push_back(std::move(chunk));
  }

  const json& returns = member(j, "returns", file);
  const json& lengths = member(j, "lengths", file);
  if (!returns.is_array()) fail(file, "key 'returns': expected a list of numbers");
  if (!lengths.is_array()) fail(file, "key 'lengths': expected a list of integers");
  for (const auto& r : returns) {
    if (!r.is_number()) fail(file, "key 'returns': expected a list of numbers, found " + r.dump());
    info.returns.push_back(r.get<double>());
  }
  for (const auto& l : lengths) {
    if (!l.is_number_integer() || l.get<std::int64_t>() < 1)
      fail(file, "key 'lengths': expected a list of positive integers, found " + l.dump());
    info.lengths.push_back(l.get<std::int64_t>());
  }

  const auto n = static_cast<std::size_t>(info.episodes);
  if (chunk_episodes != info.episodes || chunk_steps != info.steps)
    fail(file, fmt::format("the chunks hold {} episodes and {} steps, but 'episodes' is {} and 'steps' is {}",
                           chunk_episodes, chunk_steps, info.episodes, info.steps));
  if (info.returns.size() != n || info.lengths.size() != n)
    fail(file, fmt::format("{} episodes but {} returns and {} lengths", info.episodes, info.returns.size(),
                           info.lengths.size()));
  const std::int64_t length_sum = std::accumulate(info.lengths.begin(), info.lengths.end(), std::int64_t{0});
  if (length_sum != info.steps)
    fail(file, fmt::format("the lengths sum to {} steps, but 'steps' is {}", length_sum, info.steps));
  return info;
}

void write_manifest(const DatasetInfo& info) {
  durable::replace_file(info.dir / kManifestName, manifest_to_json(info).dump(1) + "\n");
}

bool prepare_output_dir(const fs::path& dir, bool overwrite) {
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec))
    throw UserError(fmt::format("{}: exists and is not a directory", dir.string()));
  if (!fs::exists(dir, ec)) {
    durable::create_directories(dir);
    return true;
  }
  std::vector<std::string> entries;
  for (const auto& e : fs::directory_iterator(dir)) entries.push_back(e.path().filename().string());
  if (entries.empty()) return false;
  if (!overwrite) {
    std::sort(entries.begin(), entries.end());
    if (entries.size() > 3) entries.resize(3), entries.push_back("...");
    throw UserError(fmt::format("{}: the directory is not empty ({}); choose another directory or overwrite it (--overwrite)",
                                dir.string(), join(entries)));
  }
  // The manifest goes first: a crash half-way leaves chunks without a manifest, which no
  // reader mistakes for a dataset.
  auto remove = [](const fs::path& p) {
    std::error_code err;
    fs::remove(p, err);
    if (err) throw UserError(fmt::format("cannot remove {}: {}", p.string(), err.message()));
  };
  remove(dir / kManifestName);
  for (const auto& name : entries)
    if (name.rfind("chunk-", 0) == 0 && name.ends_with(".rlzd")) remove(dir / name);
  durable::sync_directory(dir);
  return false;
}

}  // namespace rlzoo::data
