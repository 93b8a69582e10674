#include "core/config/device_name.h"

#include <gtest/gtest.h>

namespace rlzoo {
namespace {

TEST(DeviceName, ParsesCpuCudaCudaNAndAuto) {
  EXPECT_EQ(parse_device_name("cpu")->kind, DeviceName::Kind::cpu);
  EXPECT_EQ(parse_device_name("auto")->kind, DeviceName::Kind::automatic);
  const auto cuda = parse_device_name("cuda");
  ASSERT_TRUE(cuda);
  EXPECT_EQ(cuda->kind, DeviceName::Kind::cuda);
  EXPECT_EQ(cuda->index, -1);
  const auto third = parse_device_name("cuda:2");
  ASSERT_TRUE(third);
  EXPECT_EQ(third->kind, DeviceName::Kind::cuda);
  EXPECT_EQ(third->index, 2);
  EXPECT_EQ(parse_device_name("cuda:0")->index, 0);
}

TEST(DeviceName, RefusesOtherNamesSayingWhatWorks) {
  for (const char* bad : {"gpu", "CUDA", "cuda:", "cuda:-1", "cuda:1x", "cuda: 1", "", "cpu:0", "mps"}) {
    EXPECT_FALSE(parse_device_name(bad)) << bad;
    const auto problem = device_name_problem(bad);
    ASSERT_TRUE(problem) << bad;
    EXPECT_NE(problem->find(std::string("'") + bad + "' is not a device"), std::string::npos) << *problem;
    EXPECT_NE(problem->find("cpu, cuda, cuda:N"), std::string::npos) << *problem;
  }
  EXPECT_FALSE(device_name_problem("cuda:1"));
}

}  // namespace
}  // namespace rlzoo
