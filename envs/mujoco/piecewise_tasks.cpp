#include "envs/mujoco/piecewise_tasks.h"

#include <mujoco/mujoco.h>

#include <algorithm>
#include <cmath>
#include <numbers>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/common/error.h"
#include "core/registry/env_registry.h"
#include "envs/contexts/piecewise_context.h"

namespace rlzoo {

namespace {

using Task = PiecewiseTaskEnv::Task;

const char* id_of(Task t) {
  switch (t) {
    case Task::CheetahDirection: return "HalfCheetahDirPiecewise-v0";
    case Task::CheetahVelocity: return "HalfCheetahVelPiecewise-v0";
    case Task::AntDirection: return "AntDirPiecewise-v0";
  }
  return "";
}

std::int64_t obs_dim(Task t) {
  const auto model = load_mujoco_model("", t == Task::AntDirection ? "ant.xml" : "half_cheetah.xml");
  const mjModel* m = model->get();
  return t == Task::AntDirection ? m->nq - 2 + m->nv : m->nq - 1 + m->nv;
}

}  // namespace

PiecewiseTaskEnv::PiecewiseTaskEnv(Task task)
    : MujocoEnv(id_of(task), load_mujoco_model("", task == Task::AntDirection ? "ant.xml" : "half_cheetah.xml"), 5,
                obs_dim(task)),
      task_(task),
      torso_(task == Task::AntDirection ? body_id("torso") : 0) {}

std::vector<double> PiecewiseTaskEnv::sample_context(Rng& rng) const {
  switch (task_) {
    case Task::CheetahDirection: return {rng.below(2) == 0 ? -1.0 : 1.0};
    case Task::CheetahVelocity: return {rng.uniform(0.0, 3.0)};
    case Task::AntDirection: return {rng.uniform(0.0, 2.0 * std::numbers::pi)};
  }
  return {0.0};
}

void PiecewiseTaskEnv::set_context(std::span<const double> c) {
  if (c.size() != 1 || !std::isfinite(c[0])) throw UserError(fmt::format("{}: the context is one finite number", id()));
  if (task_ == Task::CheetahDirection && c[0] != 1.0 && c[0] != -1.0)
    throw UserError(fmt::format("{}: the direction is -1 or +1, got {}", id(), c[0]));
  context_ = c[0];
}

std::vector<double> PiecewiseTaskEnv::jitter(std::span<const double> base, Rng& rng) const {
  if (task_ == Task::CheetahDirection) return {base[0]};
  return {base[0] + 0.1 * rng.normal()};  // speed (m/s) or heading (rad)
}

void PiecewiseTaskEnv::write_observation(Bytes obs) const {
  auto o = as_span<double>(obs);
  std::size_t k = 0;
  for (int i = ant() ? 2 : 1; i < nq(); ++i) o[k++] = data()->qpos[i];
  for (int i = 0; i < nv(); ++i) o[k++] = data()->qvel[i];
}

void PiecewiseTaskEnv::reset_model(Rng& rng) {
  set_state(plus_uniform(init_qpos(), 0.1, rng), plus_normal(init_qvel(), 0.1, rng));
}

StepResult PiecewiseTaskEnv::step_task(ConstBytes action, Bytes obs) {
  const auto a = as_span<const float>(action);
  double reward = 0;
  if (!ant()) {
    const double x_before = data()->qpos[0];
    simulate(a);
    const double vx = (data()->qpos[0] - x_before) / dt();
    const double task = task_ == Task::CheetahDirection ? context_ * vx : -std::abs(vx - context_);
    reward = task - 0.1 * squared_norm(a);
    mutable_info().set_scalar("x_velocity", vx);
    mutable_info().set_scalar("reward_task", task);
  } else {
    const double x_before = data()->xpos[3 * torso_], y_before = data()->xpos[3 * torso_ + 1];
    simulate(a);
    const double vx = (data()->xpos[3 * torso_] - x_before) / dt();
    const double vy = (data()->xpos[3 * torso_ + 1] - y_before) / dt();
    const double ux = std::cos(context_), uy = std::sin(context_);
    const double along = vx * ux + vy * uy;
    const double across = std::hypot(vx - along * ux, vy - along * uy);
    double contact = 0;
    for (int i = 0; i < 6 * model()->nbody; ++i) {
      const double f = std::clamp(data()->cfrc_ext[i], -1.0, 1.0);
      contact += f * f;
    }
    reward = along - 0.05 * squared_norm(a) - 5e-4 * contact - 0.5 * across;
    mutable_info().set_scalar("velocity_along", along);
    mutable_info().set_scalar("velocity_across", across);
  }
  write_observation(obs);
  return {reward, false, false};
}

nlohmann::json PiecewiseTaskEnv::do_save_state() const {
  auto j = MujocoEnv::do_save_state();
  j["context"] = context_;
  return j;
}

void PiecewiseTaskEnv::do_load_state(const nlohmann::json& state, Bytes obs) {
  context_ = state.at("context").get<double>();
  MujocoEnv::do_load_state(state, obs);
}

namespace {

struct PiecewiseTaskConfig {
  SegmentConfig segments;  // defaults: floor(max(N(80, 20), 10)), jitter on
  static void describe(Fields<PiecewiseTaskConfig>& f) {
    f("segments", &PiecewiseTaskConfig::segments, "how long a context lasts (envs/contexts/piecewise_context.h)");
  }
};

}  // namespace

void register_piecewise_mujoco_tasks() {
  for (Task t : {Task::CheetahDirection, Task::CheetahVelocity, Task::AntDirection}) {
    EnvEntry e;
    e.factory = [t](const YAML::Node& kwargs, const ConfigContext& ctx) -> std::unique_ptr<Env> {
      const auto cfg = parse_config<PiecewiseTaskConfig>(kwargs, ctx);
      return std::make_unique<PiecewiseContext>(std::make_unique<PiecewiseTaskEnv>(t), cfg.segments);
    };
    e.max_episode_steps = 200;
    e.describe_kwargs = [] { return document_config<PiecewiseTaskConfig>(); };
    e.description = t == Task::CheetahDirection   ? "HalfCheetah running forward or backward; the direction flips every ~80 steps"
                    : t == Task::CheetahVelocity ? "HalfCheetah tracking a hidden target speed that changes every ~80 steps"
                                                 : "Ant walking in a hidden heading that changes every ~80 steps";
    register_env(id_of(t), std::move(e));
  }
}

}  // namespace rlzoo
