// The MuJoCo tasks against Gymnasium v4's definitions: sizes and bounds, the Env API
// conformance check, rewards recomputed by hand from the simulator state, termination at each
// healthy bound, state access and keyword-argument errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <mujoco/mujoco.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>

#include "core/env/conformance.h"
#include "core/registry/env_registry.h"
#include "envs/builtin.h"
#include "envs/mujoco/ant.h"
#include "envs/mujoco/assets.h"
#include "envs/mujoco/generic_mjcf.h"
#include "envs/mujoco/humanoid.h"
#include "envs/mujoco/inverted_pendulums.h"
#include "envs/mujoco/planar_runners.h"
#include "envs/mujoco/reacher.h"
#include "tests/support/test_paths.h"

namespace rlzoo {
namespace {

using Kind = PlanarRunnerEnv::Kind;
using ::testing::HasSubstr;

struct TaskFacts {
  const char* id;
  std::int64_t obs, act, max_steps;
  double act_low, act_high;
};

const TaskFacts kTasks[] = {
    {"HalfCheetah-v4", 17, 6, 1000, -1, 1},      {"Hopper-v4", 11, 3, 1000, -1, 1},
    {"Walker2d-v4", 17, 6, 1000, -1, 1},         {"Ant-v4", 27, 8, 1000, -1, 1},
    {"Humanoid-v4", 376, 17, 1000, -0.4, 0.4},   {"Swimmer-v4", 8, 2, 1000, -1, 1},
    {"InvertedPendulum-v4", 4, 1, 1000, -3, 3},  {"InvertedDoublePendulum-v4", 11, 1, 1000, -1, 1},
    {"Reacher-v4", 11, 2, 50, -1, 1},
};

class MujocoTasks : public ::testing::Test {
 protected:
  void SetUp() override { register_builtin_envs(); }
};

TEST_F(MujocoTasks, SpacesAndLimitsAreGymnasiumV4s) {
  for (const auto& t : kTasks) {
    SCOPED_TRACE(t.id);
    auto env = make_env(t.id);
    EXPECT_EQ(env->observation_space().shape(), (Shape{t.obs}));
    EXPECT_EQ(env->observation_space().dtype(), DType::Float64);
    EXPECT_EQ(env->action_space().shape(), (Shape{t.act}));
    EXPECT_EQ(env->action_space().dtype(), DType::Float32);
    EXPECT_EQ(env->action_space().low()[0], t.act_low);
    EXPECT_EQ(env->action_space().high()[0], t.act_high);
    EXPECT_EQ(env->max_episode_steps(), t.max_steps);
  }
}

TEST_F(MujocoTasks, PassTheConformanceCheck) {
  for (const auto& t : kTasks) {
    ConformanceOptions o;
    o.episodes_per_seed = 1;
    const auto report = check_env_conformance([&] { return make_env(t.id); }, o);
    EXPECT_TRUE(report.ok()) << report.summary();
  }
}

TEST_F(MujocoTasks, CopiesShareTheModel) {
  auto a = make_env("Ant-v4"), b = make_env("Ant-v4");
  EXPECT_EQ(dynamic_cast<MujocoEnv&>(*a).model(), dynamic_cast<MujocoEnv&>(*b).model());
  EXPECT_NE(dynamic_cast<MujocoEnv&>(*a).data(), dynamic_cast<MujocoEnv&>(*b).data());
}

// Resets, then steps with `action`; returns the reward and the observation.
template <class E>
std::pair<StepResult, std::vector<double>> step_once(E& env, std::vector<float> action,
                                                     std::vector<double>* before_state = nullptr) {
  std::vector<double> obs(static_cast<std::size_t>(env.observation_space().numel()));
  env.reset(3, std::as_writable_bytes(std::span(obs)));
  if (before_state) *before_state = env.get_state();
  const auto r = env.step(std::span<const float>(action), std::as_writable_bytes(std::span(obs)));
  return {r, obs};
}

double sum_sq(const std::vector<float>& a) {
  double s = 0;
  for (float v : a) s += double(v) * double(v);
  return s;
}

TEST_F(MujocoTasks, PlanarRewardsMatchHandComputations) {
  struct Case {
    Kind kind;
    PlanarRunnerConfig config;
    double dt, ctrl_weight, healthy;
  };
  const Case cases[] = {{Kind::HalfCheetah, PlanarRunnerConfig::half_cheetah(), 0.05, 0.1, 0.0},
                        {Kind::Hopper, PlanarRunnerConfig::hopper(), 0.008, 1e-3, 1.0},
                        {Kind::Walker2d, PlanarRunnerConfig::walker2d(), 0.008, 1e-3, 1.0},
                        {Kind::Swimmer, PlanarRunnerConfig::swimmer(), 0.04, 1e-4, 0.0}};
  for (const auto& c : cases) {
    PlanarRunnerEnv env(c.kind, c.config);
    SCOPED_TRACE(env.id());
    std::vector<float> action(static_cast<std::size_t>(env.action_space().numel()));
    for (std::size_t i = 0; i < action.size(); ++i) action[i] = 0.7f - 0.3f * static_cast<float>(i);
    std::vector<double> before;
    const auto [r, obs] = step_once(env, action, &before);
    const auto after = env.get_state();
    const double expected = (after[0] - before[0]) / c.dt + c.healthy - c.ctrl_weight * sum_sq(action);
    EXPECT_DOUBLE_EQ(r.reward, expected);
    EXPECT_EQ(env.dt(), c.dt);
    // Observation: qpos without x (Swimmer: x, y), then qvel (clipped for Hopper/Walker2d).
    const int skip = c.kind == Kind::Swimmer ? 2 : 1;
    for (int i = skip; i < env.nq(); ++i) EXPECT_EQ(obs[static_cast<std::size_t>(i - skip)], after[static_cast<std::size_t>(i)]);
    for (int i = 0; i < env.nv(); ++i) {
      double v = after[static_cast<std::size_t>(env.nq() + i)];
      if (c.healthy > 0) v = std::clamp(v, -10.0, 10.0);
      EXPECT_EQ(obs[static_cast<std::size_t>(env.nq() - skip + i)], v);
    }
  }
}

// Sets qpos/qvel to the current state edited by `edit`.
template <class E, class Edit>
void edit_state(E& env, Edit edit) {
  const auto s = env.get_state();
  std::vector<double> qpos(s.begin(), s.begin() + env.nq()), qvel(s.begin() + env.nq(), s.end());
  edit(qpos, qvel);
  env.set_state(qpos, qvel);
}

template <class E>
void reset(E& env) {
  std::vector<double> obs(static_cast<std::size_t>(env.observation_space().numel()));
  env.reset(5, std::as_writable_bytes(std::span(obs)));
}

TEST_F(MujocoTasks, HopperAndWalkerHealthBoundsAreStrict) {
  PlanarRunnerEnv hopper(Kind::Hopper, PlanarRunnerConfig::hopper());
  reset(hopper);
  auto healthy_with = [&](auto& env, int index, double value, bool velocity = false) {
    edit_state(env, [&](auto& q, auto& v) { (velocity ? v : q)[static_cast<std::size_t>(index)] = value; });
    const bool h = env.is_healthy();
    reset(env);
    return h;
  };
  EXPECT_TRUE(healthy_with(hopper, 1, 0.7 + 1e-9));
  EXPECT_FALSE(healthy_with(hopper, 1, 0.7));
  EXPECT_TRUE(healthy_with(hopper, 2, 0.2 - 1e-9));
  EXPECT_FALSE(healthy_with(hopper, 2, 0.2));
  EXPECT_FALSE(healthy_with(hopper, 2, -0.2));
  EXPECT_TRUE(healthy_with(hopper, 0, 99.9, true));
  EXPECT_FALSE(healthy_with(hopper, 0, 100.0, true));   // state_vector()[2:] includes qvel
  EXPECT_FALSE(healthy_with(hopper, 3, -100.0));        // and qpos[2:]
  EXPECT_TRUE(healthy_with(hopper, 0, 1e6));            // but not the x position

  PlanarRunnerEnv walker(Kind::Walker2d, PlanarRunnerConfig::walker2d());
  reset(walker);
  EXPECT_TRUE(healthy_with(walker, 1, 0.8 + 1e-9));
  EXPECT_FALSE(healthy_with(walker, 1, 0.8));
  EXPECT_TRUE(healthy_with(walker, 1, 2.0 - 1e-9));
  EXPECT_FALSE(healthy_with(walker, 1, 2.0));
  EXPECT_TRUE(healthy_with(walker, 2, 1.0 - 1e-9));
  EXPECT_FALSE(healthy_with(walker, 2, 1.0));
  EXPECT_FALSE(healthy_with(walker, 2, -1.0));
  EXPECT_TRUE(healthy_with(walker, 0, 500.0, true)) << "Walker2d has no state range";
}

TEST_F(MujocoTasks, FallingHopperTerminatesWithTheV4HealthyReward) {
  PlanarRunnerEnv hopper(Kind::Hopper, PlanarRunnerConfig::hopper());
  std::vector<double> obs(11);
  hopper.reset(1, std::as_writable_bytes(std::span(obs)));
  edit_state(hopper, [](auto& q, auto&) { q[1] = 0.5; });
  const double x0 = hopper.get_state()[0];
  const std::vector<float> a{0.1f, 0.2f, -0.3f};
  const auto r = hopper.step(std::span<const float>(a), std::as_writable_bytes(std::span(obs)));
  EXPECT_TRUE(r.terminated);
  EXPECT_FALSE(r.truncated);
  EXPECT_DOUBLE_EQ(r.reward, (hopper.get_state()[0] - x0) / 0.008 + 1.0 - 1e-3 * sum_sq(a));
}

TEST_F(MujocoTasks, AntHealthIsInclusiveAndRewardFollowsTheTorso) {
  AntEnv ant;
  reset(ant);
  auto healthy_z = [&](double z) {
    edit_state(ant, [&](auto& q, auto&) { q[2] = z; });
    return ant.is_healthy();
  };
  EXPECT_TRUE(healthy_z(0.2));
  EXPECT_TRUE(healthy_z(1.0));
  EXPECT_FALSE(healthy_z(0.2 - 1e-9));
  EXPECT_FALSE(healthy_z(1.0 + 1e-9));
  edit_state(ant, [](auto& q, auto& v) {
    q[2] = 0.6;
    v[3] = std::numeric_limits<double>::quiet_NaN();
  });
  EXPECT_FALSE(ant.is_healthy()) << "a non-finite state is unhealthy";

  reset(ant);
  const int torso = ant.body_id("torso");
  const double x0 = ant.data()->xpos[3 * torso];
  const std::vector<float> a{0.5f, -0.5f, 0.25f, 0.0f, 1.0f, -1.0f, 0.3f, 0.1f};
  std::vector<double> obs(27);
  const auto r = ant.step(std::span<const float>(a), std::as_writable_bytes(std::span(obs)));
  const double x_velocity = (ant.data()->xpos[3 * torso] - x0) / 0.05;
  EXPECT_DOUBLE_EQ(r.reward, x_velocity + 1.0 - 0.5 * sum_sq(a));
  const auto s = ant.get_state();
  for (int i = 2; i < ant.nq(); ++i) EXPECT_EQ(obs[static_cast<std::size_t>(i - 2)], s[static_cast<std::size_t>(i)]);

  AntConfig with_contacts;
  with_contacts.use_contact_forces = true;
  AntEnv ant2(with_contacts);
  EXPECT_EQ(ant2.observation_space().numel(), 27 + 84);
  reset(ant2);
  const double x1 = ant2.data()->xpos[3 * torso];
  std::vector<double> obs2(111);
  const auto r2 = ant2.step(std::span<const float>(a), std::as_writable_bytes(std::span(obs2)));
  double contact = 0;
  for (int i = 0; i < 6 * ant2.model()->nbody; ++i) contact += std::pow(std::clamp(ant2.data()->cfrc_ext[i], -1.0, 1.0), 2);
  EXPECT_DOUBLE_EQ(r2.reward, (ant2.data()->xpos[3 * torso] - x1) / 0.05 + 1.0 - 0.5 * sum_sq(a) - 5e-4 * contact);
}

TEST_F(MujocoTasks, HumanoidRewardAndHealth) {
  HumanoidEnv h;
  reset(h);
  for (const auto& [z, healthy] : std::vector<std::pair<double, bool>>{{1.0, false}, {1.0 + 1e-9, true}, {2.0, false},
                                                                      {1.4, true}}) {
    edit_state(h, [&](auto& q, auto&) { q[2] = z; });
    EXPECT_EQ(h.is_healthy(), healthy) << "z = " << z;
  }
  reset(h);
  // Mass-weighted centre of the bodies' xipos, by hand.
  auto centre_x = [&] {
    double m = 0, x = 0;
    for (int b = 0; b < h.model()->nbody; ++b) {
      m += h.model()->body_mass[b];
      x += h.model()->body_mass[b] * h.data()->xipos[3 * b];
    }
    return x / m;
  };
  const double c0 = centre_x();
  std::vector<float> a(17, 0.2f);
  a[3] = -0.4f;
  std::vector<double> obs(376);
  const auto r = h.step(std::span<const float>(a), std::as_writable_bytes(std::span(obs)));
  EXPECT_DOUBLE_EQ(r.reward, 1.25 * (centre_x() - c0) / 0.015 + 5.0 - 0.1 * sum_sq(a));
  // The observation's blocks: qpos[2:], qvel, cinert, cvel, qfrc_actuator, cfrc_ext.
  EXPECT_EQ(obs[0], h.data()->qpos[2]);
  EXPECT_EQ(obs[22], h.data()->qvel[0]);
  EXPECT_EQ(obs[45], h.data()->cinert[0]);
  EXPECT_EQ(obs[185], h.data()->cvel[0]);
  EXPECT_EQ(obs[269], h.data()->qfrc_actuator[0]);
  EXPECT_EQ(obs[292], h.data()->cfrc_ext[0]);
  EXPECT_EQ(obs[375], h.data()->cfrc_ext[83]);
}

TEST_F(MujocoTasks, PendulumsTerminateAtTheirBounds) {
  InvertedPendulumEnv ip;
  std::vector<double> obs(4);
  ip.reset(2, std::as_writable_bytes(std::span(obs)));
  const std::vector<float> zero{0.0f};
  auto r = ip.step(std::span<const float>(zero), std::as_writable_bytes(std::span(obs)));
  EXPECT_FALSE(r.terminated);
  EXPECT_EQ(r.reward, 1.0);
  edit_state(ip, [](auto& q, auto&) { q[1] = 0.3; });
  r = ip.step(std::span<const float>(zero), std::as_writable_bytes(std::span(obs)));
  EXPECT_TRUE(r.terminated) << "|qpos[1]| = " << obs[1];
  EXPECT_GT(std::abs(obs[1]), 0.2);
  EXPECT_EQ(r.reward, 1.0) << "v4 pays the terminating step too";

  InvertedDoublePendulumEnv idp;
  std::vector<double> obs2(11);
  idp.reset(2, std::as_writable_bytes(std::span(obs2)));
  const std::vector<float> push{0.3f};
  r = idp.step(std::span<const float>(push), std::as_writable_bytes(std::span(obs2)));
  const int tip = idp.site_id("tip");
  const double x = idp.data()->site_xpos[3 * tip], y = idp.data()->site_xpos[3 * tip + 2];
  const double v1 = idp.data()->qvel[1], v2 = idp.data()->qvel[2];
  EXPECT_NEAR(r.reward, 10 - (0.01 * x * x + (y - 2) * (y - 2)) - (1e-3 * v1 * v1 + 5e-3 * v2 * v2), 1e-12);
  EXPECT_FALSE(r.terminated);
  EXPECT_DOUBLE_EQ(obs2[1], std::sin(idp.data()->qpos[1]));
  EXPECT_DOUBLE_EQ(obs2[4], std::cos(idp.data()->qpos[2]));
  edit_state(idp, [](auto& q, auto&) { q[1] = 1.5; });  // first pole almost horizontal: tip low
  r = idp.step(std::span<const float>(push), std::as_writable_bytes(std::span(obs2)));
  EXPECT_LE(idp.data()->site_xpos[3 * tip + 2], 1.0);
  EXPECT_TRUE(r.terminated);
}

TEST_F(MujocoTasks, ReacherRewardIsTakenBeforeTheStep) {
  ReacherEnv env;
  std::vector<double> obs(11);
  env.reset(4, std::as_writable_bytes(std::span(obs)));
  const auto s = env.get_state();
  EXPECT_LT(std::hypot(s[2], s[3]), 0.2) << "the target lies within 0.2";
  const int tip = env.body_id("fingertip"), target = env.body_id("target");
  double d2 = 0;
  for (int i = 0; i < 3; ++i) d2 += std::pow(env.data()->xpos[3 * tip + i] - env.data()->xpos[3 * target + i], 2);
  const std::vector<float> a{0.4f, -0.8f};
  const auto r = env.step(std::span<const float>(a), std::as_writable_bytes(std::span(obs)));
  EXPECT_DOUBLE_EQ(r.reward, -std::sqrt(d2) - sum_sq(a));
  EXPECT_DOUBLE_EQ(obs[8], env.data()->xpos[3 * tip] - env.data()->xpos[3 * target]);
  EXPECT_EQ(obs[4], env.data()->qpos[2]);
}

TEST_F(MujocoTasks, StateAccessAndErrors) {
  auto env = make_env("Hopper-v4");
  auto* access = dynamic_cast<StateAccess*>(env.get());
  ASSERT_NE(access, nullptr);
  std::vector<double> obs(11);
  env->reset(0, std::as_writable_bytes(std::span(obs)));
  auto state = access->get_state();
  ASSERT_EQ(state.size(), 12u);
  state[1] = 1.1;
  access->set_state(state, std::as_writable_bytes(std::span(obs)));
  EXPECT_EQ(obs[0], 1.1);
  EXPECT_THAT(test::error_of([&] { access->set_state(std::vector<double>(5), std::as_writable_bytes(std::span(obs))); }),
              HasSubstr("qpos (6) followed by qvel (6)"));
  EXPECT_THAT(test::error_of([] { make_env("Hopper-v4", YAML::Load("{healthy_z_rnage: [0.5, 2]}")); }),
              HasSubstr("did you mean 'healthy_z_range'"));
  EXPECT_THAT(test::error_of([] { make_env("Hopper-v4", YAML::Load("{healthy_z_range: [2, 0.5]}")); }),
              HasSubstr("low < high"));
  EXPECT_THAT(test::error_of([] { make_env("Ant-v4", YAML::Load("{model_path: /no/such/ant.xml}")); }),
              HasSubstr("/no/such/ant.xml"));
  // model_path points a task at any file: here the standard model itself.
  if (const auto shared = test::shared_dir()) {
    const std::string reference = *shared + "/data/mujoco/gymnasium/hopper.xml";
    auto custom = make_env("Hopper-v4", YAML::Load("{model_path: " + reference + "}"));
    EXPECT_EQ(dynamic_cast<MujocoEnv&>(*custom).shared_model().source(), std::filesystem::absolute(reference).string());
  }
}

TEST_F(MujocoTasks, GenericMjcfEnvReproducesHopperFromYaml) {
  // The shipped hopper as a file, configured as Hopper-v4 (without its angle and state ranges).
  const std::string path = test::make_temp_dir("rlzoo-mjcf") + "/hopper.xml";
  {
    std::ofstream out(path);
    out << *mujoco_asset("hopper.xml");
  }
  const auto kwargs = YAML::Load("{model_path: " + path +
                                 ", frame_skip: 4, observation: ['qpos[1:]', qvel], clip_velocity: 10,"
                                 " reset_noise_scale: 0.005, forward_reward_weight: 1, ctrl_cost_weight: 0.001,"
                                 " healthy_reward: 1, healthy_z_range: [0.7, 1e9], healthy_z_index: 1,"
                                 " terminate_when_unhealthy: true}");
  auto generic = make_env("MJCF-v0", kwargs);
  auto hopper = make_env("Hopper-v4");
  ASSERT_EQ(generic->observation_space().shape(), hopper->observation_space().shape());
  std::vector<double> og(11), oh(11);
  generic->reset(1, std::as_writable_bytes(std::span(og)));
  hopper->reset(1, std::as_writable_bytes(std::span(oh)));
  EXPECT_EQ(og, oh) << "same reset noise from the same seed";
  Rng rng(4);
  for (int t = 0; t < 30; ++t) {
    const std::vector<float> a{static_cast<float>(rng.uniform(-1, 1)), static_cast<float>(rng.uniform(-1, 1)),
                               static_cast<float>(rng.uniform(-1, 1))};
    const auto rg = generic->step(std::span<const float>(a), std::as_writable_bytes(std::span(og)));
    const auto rh = hopper->step(std::span<const float>(a), std::as_writable_bytes(std::span(oh)));
    ASSERT_EQ(og, oh) << "step " << t;
    ASSERT_EQ(rg.reward, rh.reward) << "step " << t;
    if (rh.terminated) break;
  }
  // A C++ reward hook replaces the YAML terms.
  auto& g = dynamic_cast<GenericMjcfEnv&>(*generic);
  g.set_reward_hook([](const GenericMjcfEnv& env, const GenericMjcfEnv::StepContext& s) {
    return env.data()->qpos[1] - s.qpos_before[1];  // height gained
  });
  generic->reset(2, std::as_writable_bytes(std::span(og)));
  const double z0 = g.get_state()[1];
  const std::vector<float> zero{0, 0, 0};
  const auto r = generic->step(std::span<const float>(zero), std::as_writable_bytes(std::span(og)));
  EXPECT_DOUBLE_EQ(r.reward, g.get_state()[1] - z0);

  EXPECT_THAT(test::error_of([&] { make_env("MJCF-v0", YAML::Load("{model_path: " + path + ", observation: [qpso]}")); }),
              HasSubstr("did you mean 'qpos'"));
  EXPECT_THAT(test::error_of([&] { make_env("MJCF-v0", YAML::Load("{model_path: " + path + ", observation: ['qvel[5:2]']}")); }),
              HasSubstr("the slice is empty"));
  EXPECT_THAT(test::error_of([] { make_env("MJCF-v0"); }), HasSubstr("model_path"));
  auto sliced = make_env("MJCF-v0", YAML::Load("{model_path: " + path + ", observation: ['qpos[-2:]', 'xpos[3:6]']}"));
  EXPECT_EQ(sliced->observation_space().numel(), 5);
}

// E8 (docs/reliability.md): a force so large that the acceleration is bad makes MuJoCo reset the
// data by itself. The step is truncated and marked, never continued as if nothing happened.
TEST_F(MujocoTasks, AnUnstableStepIsTruncatedAndMarkedAsAPhysicsReset) {
  const std::string path = test::make_temp_dir("rlzoo-mjcf") + "/slider.xml";
  {
    std::ofstream out(path);
    out << R"(<mujoco><worldbody><body name="box" pos="0 0 1"><joint name="x" type="slide" axis="1 0 0"/>
             <geom type="box" size=".1 .1 .1" mass="1"/></body></worldbody>
             <actuator><motor joint="x" gear="1e6"/></actuator></mujoco>)";
  }
  auto env = make_env("MJCF-v0", YAML::Load("{model_path: " + path + "}"));
  std::vector<double> obs(static_cast<std::size_t>(env->observation_space().numel()));
  const auto o = std::as_writable_bytes(std::span(obs));
  env->reset(0, o);
  // 1e9 passes MuJoCo's control check (1e10); times the gear, the acceleration does not.
  const std::vector<float> gentle{1.0f}, huge{1e9f};
  const auto calm = env->step(std::span<const float>(gentle), o);
  EXPECT_FALSE(calm.truncated);
  EXPECT_FALSE(env->info().scalar("physics_reset").has_value());
  EXPECT_GT(obs[0], 0.0);  // qpos of the slider moved forward
  const auto bad = env->step(std::span<const float>(huge), o);
  EXPECT_TRUE(bad.truncated);
  EXPECT_FALSE(bad.terminated);
  EXPECT_EQ(env->info().scalar("physics_reset"), 1.0);
  EXPECT_EQ(obs[0], 0.0);  // MuJoCo's reset: the initial position
  EXPECT_EQ(bad.reward, 0.0);  // not a difference of positions across MuJoCo's reset
  // A new episode runs normally, and a second instability is caught as well.
  env->reset(std::nullopt, o);
  EXPECT_FALSE(env->step(std::span<const float>(gentle), o).truncated);
  EXPECT_FALSE(env->info().scalar("physics_reset").has_value());
  EXPECT_TRUE(env->step(std::span<const float>(huge), o).truncated);
  EXPECT_EQ(env->info().scalar("physics_reset"), 1.0);
}

}  // namespace
}  // namespace rlzoo
