// A compiled MuJoCo model shared read-only by every copy of an env (MuJoCo's mj_step takes a
// const mjModel*; each env owns its mjData). Loading the same file again returns the model
// already in memory while any env still uses it.
//
//   auto model = load_mujoco_model("");            // the task's shipped model (see below)
//   auto model = load_mujoco_model("my/robot.xml");
#pragma once

#include <memory>
#include <string>

struct mjModel_;
typedef struct mjModel_ mjModel;

namespace rlzoo {

class MujocoModel {
 public:
  MujocoModel(mjModel* model, std::string source);
  ~MujocoModel();
  MujocoModel(const MujocoModel&) = delete;
  MujocoModel& operator=(const MujocoModel&) = delete;

  const mjModel* get() const { return model_; }
  // Where it came from: a file path, or "rlzoo:<name>" for a shipped model.
  const std::string& source() const { return source_; }

 private:
  mjModel* model_;
  std::string source_;
};

// `model_path` empty: the shipped model `asset` (envs/mujoco/assets/<asset>); else the MJCF
// file at model_path. Throws UserError with MuJoCo's message (which names the element and
// line) for a file that does not load.
std::shared_ptr<const MujocoModel> load_mujoco_model(const std::string& model_path, const std::string& asset);

// The MuJoCo version this build runs (mj_versionString()).
std::string mujoco_version();

}  // namespace rlzoo
