#include "rl/agent_checkpoint.h"

#include <filesystem>
#include <optional>
#include <sstream>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include "core/checkpoint/manager.h"
#include "core/config/yaml_io.h"
#include "core/config/device_name.h"
#include "core/torch/device.h"
#include "core/torch/tensor_io.h"
#include "core/torch/version.h"

namespace rlzoo {

CheckpointWriter agent_checkpoint_writer(const Agent& agent) {
  CheckpointWriter w(nlohmann::json{{"algo", agent.algorithm()},
                                    {"env", agent.env_spec().id},
                                    {"num_timesteps", agent.num_timesteps()},
                                    {"num_episodes", agent.num_episodes()},
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
    if (!latest.warnings.empty())
      throw UserError(fmt::format("{}: no checkpoint in {} can be loaded: {}", path,
                                  (fs::path(path) / "checkpoints").string(), fmt::join(latest.warnings, "; ")));
  }
  throw UserError(fmt::format("{}: not an agent: expected manifest.json, final/manifest.json or checkpoints/ in it",
                              path));
}

namespace {

// "MAJOR.MINOR.PATCH..." -> {major, minor}, or nullopt.
std::optional<std::pair<int, int>> major_minor(const std::string& version) {
  int major = 0, minor = 0;
  char dot = 0;
  std::istringstream in(version);
  if (!(in >> major >> dot >> minor) || dot != '.' || major < 0 || minor < 0) return std::nullopt;
  return std::pair{major, minor};
}

}  // namespace

void check_checkpoint_version(const CheckpointReader& reader) {
  const std::string theirs = reader.rlzoo_version(), ours = RLZOO_VERSION;
  const auto a = major_minor(theirs), b = major_minor(ours);
  const std::string manifest = (reader.dir() / "manifest.json").string();
  if (!a) throw UserError(fmt::format("{}: field rlzoo_version is '{}', not a version number", manifest, theirs));
  RLZOO_CHECK(b.has_value(), "RLZOO_VERSION does not parse");
  const bool compatible = a->first == b->first && (b->first > 0 || a->second == b->second);
  if (!compatible)
    throw UserError(fmt::format("{}: field rlzoo_version differs: the checkpoint was written by rlzoo {}, this is rlzoo {}, "
                                "which reads checkpoints of rlzoo {}.{}.x only",
                                manifest, theirs, ours, b->first, b->second));
  const auto meta = reader.metadata();
  if (meta.is_object() && meta.contains("torch_version") && meta["torch_version"].is_string() &&
      meta["torch_version"].get<std::string>() != torch_version())
    spdlog::warn("{}: written with LibTorch {}, this is LibTorch {}; loading it anyway", reader.dir().string(),
                 meta["torch_version"].get<std::string>(), torch_version());
}

void check_resume_config(const std::string& run_dir, const CheckpointReader& reader) {
  const std::filesystem::path run_preset = std::filesystem::path(run_dir) / "preset.yaml";
  if (!std::filesystem::exists(run_preset)) return;
  const std::string saved = (reader.dir() / "preset.yaml").string();
  // Both with every common key's default filled in, so that a key added since the run started
  // (runtime.backend) is not a difference between its preset.yaml and a newer checkpoint's.
  auto resolved = [](const YAML::Node& node, const std::string& source) {
    return to_yaml(parse_config<PresetConfig>(node, ConfigContext(source)));
  };
  YAML::Node run = resolved(load_yaml_file(run_preset.string()), run_preset.string());
  const YAML::Node checkpoint = resolved(load_yaml_string(reader.read("preset.yaml"), saved), saved);
  // A run extended (`train --resume D --set n_timesteps=N`) has a larger budget than its
  // checkpoints from before; only a smaller one is a difference.
  if (run["n_timesteps"].as<std::int64_t>() >= checkpoint["n_timesteps"].as<std::int64_t>())
    run["n_timesteps"] = checkpoint["n_timesteps"];
  if (const auto d = first_difference(run, checkpoint))
    throw UserError(fmt::format("cannot resume {}: field {} differs: {} in {} but {} in {}; a run resumes with the config "
                                "it started with (start a new run to change it)",
                                run_dir, d->path, d->a, run_preset.string(), d->b, saved));
}

AgentSetup saved_setup(const CheckpointReader& reader, const std::vector<std::string>& overrides) {
  const std::string source = (reader.dir() / "preset.yaml").string();
  YAML::Node root = load_yaml_string(reader.read("preset.yaml"), source);
  ConfigContext ctx(source);
  for (const auto& o : overrides) apply_override(root, o, ctx);
  AgentSetup setup = parse_preset(root, ctx);
  // An agent trained on a GPU still loads (to evaluate, export or resume) where there is none.
  const auto device = parse_device_name(setup.preset.device);
  if (device && device->kind == DeviceName::Kind::cuda && !cuda_usable()) {
    spdlog::warn("{}: trained on device '{}', which this machine does not have; loading it on the CPU",
                 reader.dir().string(), setup.preset.device);
    setup.preset.device = "cpu";
  }
  return setup;
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
