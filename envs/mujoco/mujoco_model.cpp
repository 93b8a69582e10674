#include "envs/mujoco/mujoco_model.h"

#include <mujoco/mujoco.h>

#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <map>
#include <mutex>
#include <spdlog/spdlog.h>
#include <string_view>

#include "core/common/error.h"
#include "envs/mujoco/assets.h"

namespace rlzoo {

MujocoModel::MujocoModel(mjModel* model, std::string source) : model_(model), source_(std::move(source)) {}
MujocoModel::~MujocoModel() { mj_deleteModel(model_); }

std::optional<std::string_view> mujoco_asset(std::string_view name) {
  for (const EmbeddedFile& f : mujoco_assets())
    if (name == f.name) return f.text;
  return std::nullopt;
}

namespace {

mjModel* load_asset(const std::string& name) {
  const auto text = mujoco_asset(name);
  if (!text) throw UserError(fmt::format("no shipped MuJoCo model named '{}'", name));
  // The model goes through MuJoCo's virtual file system (the struct is ~2 MB: heap).
  auto vfs = std::make_unique<mjVFS>();
  mj_defaultVFS(vfs.get());
  RLZOO_CHECK(mj_makeEmptyFileVFS(vfs.get(), name.c_str(), static_cast<int>(text->size())) == 0);
  const int i = mj_findFileVFS(vfs.get(), name.c_str());
  std::memcpy(vfs->filedata[i], text->data(), text->size());
  char error[1000] = "";
  mjModel* m = mj_loadXML(name.c_str(), vfs.get(), error, sizeof error);
  mj_deleteVFS(vfs.get());
  RLZOO_CHECK(m != nullptr, fmt::format("the shipped model {} does not load: {}", name, error));
  return m;
}

mjModel* load_file(const std::string& path) {
  if (!std::filesystem::exists(path)) throw UserError(fmt::format("model_path '{}': no such file", path));
  char error[1000] = "";
  mjModel* m = mj_loadXML(path.c_str(), nullptr, error, sizeof error);
  if (!m) throw UserError(fmt::format("model_path '{}': MuJoCo cannot load it: {}", path, error));
  return m;
}

// MuJoCo's warnings go to rlzoo's log instead of stdout and ./MUJOCO_LOG.TXT. Those about an
// unstable state (MuJoCo then resets the data) are reported by MujocoEnv::do_step with the env
// named, once per env; here they are debug lines.
void log_mujoco_warning(const char* message) {
  const std::string_view m(message);
  if (m.find("unstable") != std::string_view::npos && m.find("CTRL") == std::string_view::npos)
    spdlog::debug("mujoco: {}", m);
  else
    spdlog::warn("mujoco: {}", m);
}

}  // namespace

std::shared_ptr<const MujocoModel> load_mujoco_model(const std::string& model_path, const std::string& asset) {
  static std::mutex mutex;
  static std::map<std::string, std::weak_ptr<const MujocoModel>> cache;
  const std::string key = model_path.empty() ? "rlzoo:" + asset : std::filesystem::absolute(model_path).string();
  std::lock_guard lock(mutex);
  mju_user_warning = log_mujoco_warning;  // before any mjData of this process steps
  if (auto cached = cache[key].lock()) return cached;
  mjModel* m = model_path.empty() ? load_asset(asset) : load_file(model_path);
  auto model = std::make_shared<const MujocoModel>(m, key);
  cache[key] = model;
  return model;
}

std::string mujoco_version() { return mj_versionString(); }

}  // namespace rlzoo
