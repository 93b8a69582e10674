// `rlzoo enjoy --render` prints grid worlds as text; other envs are refused with a reason.
#include <gtest/gtest.h>

#include "tests/support/test_paths.h"

namespace rlzoo {
namespace {

std::string cli() {
  std::string s(1, '\'');
  s += test::cli_path();
  s += '\'';
  return s;
}

TEST(GridWorldCli, EnjoyRendersTheGridAsText) {
  if (test::run_command(cli() + " train --help").status != 0) GTEST_SKIP() << "rlzoo built without LibTorch";
  const auto dir = test::make_temp_dir("gw_cli") + "/run";
  auto r = test::run_command(cli() + " train --preset '" + test::source_dir() +
                             "/configs/ppo/GridWorld-Empty-v0.yaml' --set n_timesteps=6000 -q --run-dir '" + dir + "'");
  ASSERT_EQ(r.status, 0) << r.err;
  r = test::run_command(cli() + " enjoy '" + dir + "' -n 1 --render");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("episode 1 step 0:\nA.....\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(".....G"), std::string::npos);
  const auto both = test::run_command(cli() + " enjoy '" + dir + "' --render --record /tmp/x");
  EXPECT_EQ(both.status, 2);
  EXPECT_NE(both.err.find("either --render or --record"), std::string::npos);
}

}  // namespace
}  // namespace rlzoo
