// `rlzoo env replay` for the MuJoCo tasks: initial_state = qpos followed by qvel, and the
// answer equals stepping the env in-process from that state.
#include <gtest/gtest.h>

#ifdef RLZOO_WITH_MUJOCO
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/registry/env_registry.h"
#include "envs/builtin.h"
#include "tests/support/test_paths.h"

namespace rlzoo {
namespace {

TEST(MujocoReplay, CliAnswersAsTheEnvInProcess) {
  register_builtin_envs();
  struct Case {
    std::string env;
    std::vector<double> state;
    std::vector<std::vector<float>> actions;
  };
  const std::vector<Case> cases = {
      {"Hopper-v4", {0, 1.25, 0.01, 0, 0, 0, 0.1, 0, 0, 0, 0, 0}, {{0.1f, 0.2f, 0.3f}, {0, 0, 0}, {-1, 1, -1}}},
      {"InvertedDoublePendulum-v4", {0, 0.05, -0.02, 0, 0, 0}, {{0.5f}, {-0.5f}}},
      {"Reacher-v4", {0.1, -0.2, 0.05, 0.1, 0, 0, 0, 0}, {{0.3f, -0.3f}, {1, 1}}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.env);
    nlohmann::json line{{"env", c.env}, {"initial_state", c.state}, {"actions", c.actions}};
    const auto r = test::run_command(test::cli_quoted() + " env replay", line.dump() + "\n");
    ASSERT_EQ(r.status, 0) << r.err;
    const auto answer = nlohmann::json::parse(r.out);

    auto env = make_env(c.env);
    std::vector<double> obs(static_cast<std::size_t>(env->observation_space().numel()));
    env->reset(0, std::as_writable_bytes(std::span(obs)));
    dynamic_cast<StateAccess&>(*env).set_state(c.state, std::as_writable_bytes(std::span(obs)));
    for (std::size_t t = 0; t < c.actions.size(); ++t) {
      const auto step = env->step(std::span<const float>(c.actions[t]), std::as_writable_bytes(std::span(obs)));
      EXPECT_EQ(answer["rewards"][t].get<double>(), step.reward) << "step " << t;
      EXPECT_EQ(answer["obs"][t].get<std::vector<double>>(), obs) << "step " << t;
      if (step.done()) break;
    }
  }
}

// `rlzoo enjoy --record DIR` writes one PNG per frame (the reset and every step), or says why
// offscreen rendering is unavailable.
TEST(MujocoRecord, EnjoyWritesOnePngPerFrame) {
  const std::string dir = test::make_temp_dir("rlzoo-record");
  const std::string cli = test::cli_quoted() + " ";
  auto r = test::run_command(cli + "train ppo InvertedPendulum-v4 --no-preset -q --set n_timesteps=64 --set hyperparams.n_steps=32 "
                                   "--set hyperparams.batch_size=32 --run-dir " + dir + "/run");
  ASSERT_EQ(r.status, 0) << r.err;
  r = test::run_command(cli + "enjoy " + dir + "/run -n 1 --record " + dir + "/frames --size 64 48");
  if (r.status != 0 && r.err.find("offscreen rendering is not available") != std::string::npos)
    GTEST_SKIP() << r.err;
  ASSERT_EQ(r.status, 0) << r.err;
  const auto length = std::stoi(r.out.substr(r.out.find("length ") + 7));
  int frames = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir + "/frames")) {
    ++frames;
    std::ifstream f(e.path(), std::ios::binary);
    char sig[8];
    f.read(sig, 8);
    EXPECT_EQ(std::string(sig + 1, 3), "PNG") << e.path();
  }
  EXPECT_EQ(frames, length + 1) << "the reset frame and one per step";
  EXPECT_TRUE(std::filesystem::exists(dir + "/frames/ep000_00000.png"));
}

}  // namespace
}  // namespace rlzoo
#endif
