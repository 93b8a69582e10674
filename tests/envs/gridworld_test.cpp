// Grid worlds: hand-worked moves, walls, slip, goal/lava/cliff rewards, optimal returns by BFS,
// map errors, conformance of every registered layout.
#include <gtest/gtest.h>

#include "core/env/conformance.h"
#include "core/registry/env_registry.h"
#include "envs/builtin.h"
#include "envs/gridworld/grid_world.h"
#include "tests/support/test_paths.h"

namespace rlzoo {
namespace {

GridWorldConfig small(std::vector<std::string> map) {
  GridWorldConfig c;
  c.map = std::move(map);
  return c;
}

TEST(GridWorld, MovesWallsAndTerminalCells) {
  GridWorldEnv env("Test", small({"S.#", "..G", "L.."}));
  std::vector<float> obs(9);
  auto o = std::as_writable_bytes(std::span(obs));
  env.reset(0, o);
  EXPECT_EQ(obs[0], 1.0f);
  EXPECT_EQ(env.step(0, o).reward, -0.01);  // up: outside = wall, stays
  EXPECT_EQ(env.row(), 0);
  env.step(1, o);                            // right
  EXPECT_EQ(env.col(), 1);
  env.step(1, o);                            // right: '#', stays
  EXPECT_EQ(env.col(), 1);
  const auto r = env.step(2, o);             // down to (1, 1)
  EXPECT_FALSE(r.terminated);
  const auto g = env.step(1, o);             // right onto G
  EXPECT_TRUE(g.terminated);
  EXPECT_DOUBLE_EQ(g.reward, 1.0 - 0.01);
  EXPECT_EQ(obs[5], 1.0f);
  env.reset(0, o);
  env.step(2, o);
  const auto lava = env.step(2, o);          // (2, 0) is lava
  EXPECT_TRUE(lava.terminated);
  EXPECT_DOUBLE_EQ(lava.reward, -1.01);
  EXPECT_EQ(env.render_text(), "S.#\n..G\nA..\n");
}

TEST(GridWorld, CliffSendsBackToTheStart) {
  register_builtin_envs();
  auto env = make_env("GridWorld-Cliff-v0");
  auto& g = dynamic_cast<GridWorldEnv&>(*env);
  std::vector<float> obs(static_cast<std::size_t>(env->observation_space().numel()));
  auto o = std::as_writable_bytes(std::span(obs));
  env->reset(0, o);
  const auto r = env->step(1, o);  // right from S is the cliff
  EXPECT_DOUBLE_EQ(r.reward, -101.0);
  EXPECT_FALSE(r.terminated);
  EXPECT_EQ(g.row(), 3);
  EXPECT_EQ(g.col(), 0);
  EXPECT_DOUBLE_EQ(g.optimal_return(), -13.0);  // up, 11 x right, down: -1 each, no goal bonus (as Sutton & Barto)
}

TEST(GridWorld, OptimalReturnsOfTheLayouts) {
  register_builtin_envs();
  // Empty 6x6: 10 steps corner to corner.
  EXPECT_NEAR(dynamic_cast<GridWorldEnv&>(*make_env("GridWorld-Empty-v0")).optimal_return(), 1.0 - 0.10, 1e-12);
  // Four rooms: the far corner is 20 steps away through the doorways.
  EXPECT_NEAR(dynamic_cast<GridWorldEnv&>(*make_env("GridWorld-FourRooms-v0")).optimal_return(), 1.0 - 0.20, 1e-12);
}

TEST(GridWorld, SlipReplacesActionsAtTheConfiguredRate) {
  GridWorldConfig c = small({"S....", ".....", "....."});
  c.slip = 0.5;
  c.observation = "coords";
  GridWorldEnv env("Slip", c);
  std::vector<float> obs(2);
  auto o = std::as_writable_bytes(std::span(obs));
  env.reset(3, o);
  int moved_right = 0, n = 4000;
  for (int i = 0; i < n; ++i) {
    std::vector<double> s{1, 2};
    env.set_state(s, o);
    env.step(1, o);
    moved_right += env.col() == 3;
  }
  // Right happens when not slipping (0.5) or slipping to right (0.5 x 1/4): 0.625.
  EXPECT_NEAR(moved_right / static_cast<double>(n), 0.625, 0.03);
  EXPECT_FLOAT_EQ(obs[0], 0.5f);
}

TEST(GridWorld, BadMapsAreExplained) {
  EXPECT_NE(test::error_of([] { GridWorldEnv("x", small({"S..", ".."})); }).find("row 1 has 2 cells"), std::string::npos);
  EXPECT_NE(test::error_of([] { GridWorldEnv("x", small({"S.X"})); }).find("'X' at row 0, column 2"), std::string::npos);
  EXPECT_NE(test::error_of([] { GridWorldEnv("x", small({"...", "..G"})); }).find("0 start cells"), std::string::npos);
  EXPECT_NE(test::error_of([] { GridWorldEnv("x", small({"S#G"})).optimal_return(); }).find("no goal"), std::string::npos);
}

TEST(GridWorld, RegisteredLayoutsPassConformance) {
  register_builtin_envs();
  for (const char* id : {"GridWorld-Empty-v0", "GridWorld-FourRooms-v0", "GridWorld-Cliff-v0"}) {
    ConformanceOptions opt;
    opt.expect_seed_dependence = false;  // deterministic without slip
    const auto report = check_env_conformance([id] { return make_env(id); }, opt);
    EXPECT_TRUE(report.ok()) << id << ": " << report.summary();
  }
  auto slippery = [] {
    YAML::Node k;
    k["slip"] = 0.2;
    return make_env("GridWorld-FourRooms-v0", k);
  };
  EXPECT_TRUE(check_env_conformance(slippery).ok());
}

}  // namespace
}  // namespace rlzoo
