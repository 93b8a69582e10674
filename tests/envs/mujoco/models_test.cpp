// The shipped robot models (envs/mujoco/assets) against Gymnasium's standard models: every
// physics quantity of the compiled models, and 100-step trajectories from the reset state.
#include <gtest/gtest.h>

#include <mujoco/mujoco.h>

#include <filesystem>
#include <fstream>
#include <iostream>

#include "core/common/error.h"
#include "envs/mujoco/mujoco_model.h"
#include "tests/envs/mujoco/model_compare.h"
#include "tests/support/test_paths.h"

namespace rlzoo {
namespace {

class ShippedModel : public ::testing::TestWithParam<const char*> {};

TEST_P(ShippedModel, CompilesToTheStandardModel) {
  const std::string name = GetParam();
  const auto ours = load_mujoco_model("", name);
  ASSERT_NE(ours->get(), nullptr);
  const auto shared = test::shared_dir();
  if (!shared) GTEST_SKIP() << "../shared is absent: no standard model to compare with";
  const std::string reference = *shared + "/data/mujoco/gymnasium/" + name;
  ASSERT_TRUE(std::filesystem::exists(reference)) << reference;
  char error[1000] = "";
  mjModel* ref = mj_loadXML(reference.c_str(), nullptr, error, sizeof error);
  ASSERT_NE(ref, nullptr) << error;
  const auto differences = test::compare_compiled_models(ours->get(), ref);
  std::string all;
  for (const auto& d : differences) all += d + "\n";
  EXPECT_TRUE(differences.empty()) << name << " differs from the standard model:\n" << all;
  if (differences.empty()) {
    EXPECT_LE(test::max_trajectory_difference(ours->get(), ref, 100, -1), 1e-9) << "zero controls";
    EXPECT_LE(test::max_trajectory_difference(ours->get(), ref, 100, 17), 1e-9) << "random controls";
    std::cout << "[mujoco] " << name << ": compiled model and 100-step trajectories agree with " << reference
              << std::endl;
  }
  mj_deleteModel(ref);
}

INSTANTIATE_TEST_SUITE_P(Assets, ShippedModel,
                         ::testing::Values("half_cheetah.xml", "hopper.xml", "walker2d.xml", "ant.xml", "humanoid.xml",
                                           "swimmer.xml", "inverted_pendulum.xml", "inverted_double_pendulum.xml",
                                           "reacher.xml"),
                         [](const auto& info) {
                           std::string n = info.param;
                           return n.substr(0, n.find('.'));
                         });

TEST(ModelCompare, FindsADifference) {
  // The comparison must be able to fail: Walker2d's v4 and v5 models differ in one friction.
  const auto shared = test::shared_dir();
  if (!shared) GTEST_SKIP() << "../shared is absent";
  const std::string dir = *shared + "/data/mujoco/gymnasium/";
  char error[1000] = "";
  mjModel* v5 = mj_loadXML((dir + "walker2d_v5.xml").c_str(), nullptr, error, sizeof error);
  ASSERT_NE(v5, nullptr) << error;
  const auto differences = test::compare_compiled_models(load_mujoco_model("", "walker2d.xml")->get(), v5);
  ASSERT_EQ(differences.size(), 1u);
  EXPECT_EQ(differences[0], "geom_friction[12]: 0.9 vs 1.9");
  mj_deleteModel(v5);
}

TEST(MujocoModel, CopiesShareOneModelAndBadFilesAreUserErrors) {
  EXPECT_EQ(load_mujoco_model("", "hopper.xml").get(), load_mujoco_model("", "hopper.xml").get());
  try {
    load_mujoco_model("/nonexistent/robot.xml", "");
    FAIL();
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/robot.xml"), std::string::npos) << e.what();
  }
  const std::string bad = test::make_temp_dir("rlzoo-mjcf") + "/bad.xml";
  {
    std::ofstream out(bad);
    out << "<mujoco>\n  <worldbody>\n    <geom type=\"sphere\" size=\"oops\"/>\n  </worldbody>\n</mujoco>\n";
  }
  try {
    load_mujoco_model(bad, "");
    FAIL();
  } catch (const UserError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find(bad), std::string::npos) << msg;
    EXPECT_NE(msg.find("line"), std::string::npos) << "MuJoCo's message names the line: " << msg;
  }
  EXPECT_THROW(load_mujoco_model("", "no_such_model.xml"), UserError);
}

}  // namespace
}  // namespace rlzoo
