#include "agents/agent_checkpoint.h"

#include <filesystem>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "core/checkpoint/manager.h"
#include "core/config/yaml_io.h"
#include "core/torch/tensor_io.h"
#include "core/torch/version.h"

namespace rlzoo {

CheckpointWriter agent_checkpoint_writer(const Agent& agent) {
  CheckpointWriter w(nlohmann::json{{"algo", agent.algorithm()},
                                    {"env", agent.env_spec().id},
                                    {"num_timesteps", agent.num_timesteps()},
                                    {"torch_version", torch_version()}});
  YAML::Emitter out;
  out << agent.config();
  w.add("preset.yaml", std::string(out.c_str()) + "\n");
  w.add("torch_rng", save_generator_state());
  return w;
}

std::string resolve_agent_dir(const std::string& path) {
  namespace fs = std::filesystem;
  if (!fs::exists(path)) throw UserError(fmt::format("{}: no such agent or run directory", path));
  if (fs::exists(fs::path(path) / "manifest.json")) return path;
  if (fs::exists(fs::path(path) / "final" / "manifest.json")) return (fs::path(path) / "final").string();
  if (fs::is_directory(fs::path(path) / "checkpoints")) {
    auto latest = CheckpointManager(fs::path(path) / "checkpoints").latest();
    if (latest.reader) return latest.reader->dir().string();
  }
  throw UserError(fmt::format("{}: not an agent: expected manifest.json, final/manifest.json or checkpoints/ in it",
                              path));
}

AgentSetup saved_setup(const CheckpointReader& reader, const std::vector<std::string>& overrides) {
  const std::string source = (reader.dir() / "preset.yaml").string();
  YAML::Node root = load_yaml_string(reader.read("preset.yaml"), source);
  ConfigContext ctx(source);
  for (const auto& o : overrides) apply_override(root, o, ctx);
  return parse_preset(root, ctx);
}

void add_training_envs(CheckpointWriter& writer, const VectorEnv* envs) {
  if (!envs) return;
  try {
    writer.add_json("envs.json", envs->save_state());
  } catch (const UserError& e) {
    spdlog::warn("{}; a resumed run will start new episodes", e.what());
  }
}

void restore_training_envs(VectorEnv& envs, const CheckpointReader& reader, std::uint64_t fallback_seed) {
  if (reader.has("envs.json"))
    envs.load_state(reader.read_json("envs.json"));
  else
    envs.reset(fallback_seed);
}

}  // namespace rlzoo
