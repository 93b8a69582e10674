#include "envs/mujoco/register.h"

#include "core/registry/env_registry.h"
#include "envs/mujoco/ant.h"
#include "envs/mujoco/generic_mjcf.h"
#include "envs/mujoco/humanoid.h"
#include "envs/mujoco/inverted_pendulums.h"
#include "envs/mujoco/piecewise_tasks.h"
#include "envs/mujoco/planar_runners.h"
#include "envs/mujoco/reacher.h"

namespace rlzoo {

namespace {

template <class Config, class Make>
EnvEntry entry(Make make, std::int64_t max_steps, std::optional<double> threshold, std::string description,
               Config defaults = {}) {
  EnvEntry e;
  e.factory = [make, defaults](const YAML::Node& kwargs, const ConfigContext& ctx) -> std::unique_ptr<Env> {
    Config config = defaults;  // the task's defaults, then the keyword arguments
    parse_into(config, kwargs, ctx);
    return make(std::move(config));
  };
  e.max_episode_steps = max_steps;
  e.describe_kwargs = [defaults] { return document_config(defaults); };
  e.reward_threshold = threshold;
  e.description = std::move(description);
  return e;
}

EnvEntry runner(PlanarRunnerEnv::Kind kind, PlanarRunnerConfig defaults, std::optional<double> threshold,
                std::string description) {
  return entry<PlanarRunnerConfig>(
      [kind](PlanarRunnerConfig c) { return std::make_unique<PlanarRunnerEnv>(kind, std::move(c)); }, 1000, threshold,
      std::move(description), std::move(defaults));
}

}  // namespace

void register_mujoco_envs() {
  using Kind = PlanarRunnerEnv::Kind;
  register_env("HalfCheetah-v4", runner(Kind::HalfCheetah, PlanarRunnerConfig::half_cheetah(), 4800.0,
                                        "MuJoCo: a planar cheetah running forward"));
  register_env("Hopper-v4",
               runner(Kind::Hopper, PlanarRunnerConfig::hopper(), 3800.0, "MuJoCo: a planar one-legged hopper"));
  register_env("Walker2d-v4",
               runner(Kind::Walker2d, PlanarRunnerConfig::walker2d(), std::nullopt, "MuJoCo: a planar biped walker"));
  register_env("Swimmer-v4", runner(Kind::Swimmer, PlanarRunnerConfig::swimmer(), 360.0,
                                    "MuJoCo: a three-link swimmer in a viscous fluid"));
  register_env(AntEnv::kId, entry<AntConfig>([](AntConfig c) { return std::make_unique<AntEnv>(std::move(c)); }, 1000,
                                             6000.0, "MuJoCo: a four-legged ant walking forward"));
  register_env(HumanoidEnv::kId,
               entry<HumanoidConfig>([](HumanoidConfig c) { return std::make_unique<HumanoidEnv>(std::move(c)); }, 1000,
                                     std::nullopt, "MuJoCo: a 3D humanoid running forward"));
  register_env(InvertedPendulumEnv::kId,
               entry<InvertedPendulumConfig>(
                   [](InvertedPendulumConfig c) { return std::make_unique<InvertedPendulumEnv>(std::move(c)); }, 1000,
                   950.0, "MuJoCo: balance a pole on a cart"));
  register_env(InvertedDoublePendulumEnv::kId,
               entry<InvertedDoublePendulumConfig>(
                   [](InvertedDoublePendulumConfig c) {
                     return std::make_unique<InvertedDoublePendulumEnv>(std::move(c));
                   },
                   1000, 9100.0, "MuJoCo: balance two stacked poles on a cart"));
  register_env(GenericMjcfEnv::kId,
               entry<GenericMjcfConfig>(
                   [](GenericMjcfConfig c) { return std::make_unique<GenericMjcfEnv>(std::move(c)); }, 1000,
                   std::nullopt, "MuJoCo: any MJCF model (env_kwargs: model_path, observation, reward terms)"));
  register_env(ReacherEnv::kId,
               entry<ReacherConfig>([](ReacherConfig c) { return std::make_unique<ReacherEnv>(std::move(c)); }, 50, -3.75,
                                    "MuJoCo: reach a random target with a two-joint arm"));
  register_piecewise_mujoco_tasks();
}

}  // namespace rlzoo
