// The learner group's backend follows the learners' device: Gloo on the CPU, NCCL on CUDA, and
// CUDA learners without NCCL are refused naming it. A one-learner Gloo group runs its
// collectives for real (the two-process runs are tests/distributed/learner_group_test.cpp; the
// NCCL group runs on a GPU in tests/gpu).
#include <gtest/gtest.h>

#include <torch/torch.h>

#include "core/platform/loopback_port.h"
#include "core/torch/device.h"
#include "distributed/c10d_reducer.h"
#include "tests/support/test_paths.h"

namespace rlzoo {
namespace {

TEST(LearnerGroupBackend, GlooOnTheCpuNcclOnCuda) {
  EXPECT_EQ(choose_c10d_backend(torch::kCPU, /*has_nccl=*/false, 2), C10dBackend::gloo);
  EXPECT_EQ(choose_c10d_backend(torch::kCPU, /*has_nccl=*/true, 2), C10dBackend::gloo);
  EXPECT_EQ(choose_c10d_backend(torch::Device(torch::kCUDA, 0), /*has_nccl=*/true, 2), C10dBackend::nccl);
  EXPECT_STREQ(to_string(C10dBackend::nccl), "NCCL");
  EXPECT_STREQ(to_string(C10dBackend::gloo), "Gloo");
}

TEST(LearnerGroupBackend, CudaLearnersWithoutNcclAreRefusedNamingIt) {
  const std::string e = test::error_of([] { choose_c10d_backend(torch::Device(torch::kCUDA, 0), false, 2); });
  EXPECT_NE(e.find("--learners 2 with device 'cuda:0'"), std::string::npos) << e;
  EXPECT_NE(e.find("no NCCL"), std::string::npos) << e;
  EXPECT_NE(e.find("use device: cpu"), std::string::npos) << e;
}

TEST(LearnerGroupBackend, NcclIsCompiledInExactlyWhenLibTorchHasCuda) {
  // The two LibTorch builds rlzoo supports: Debian's 1.13 (CPU, Gloo only) and PyPI's CUDA one
  // (Gloo and NCCL); `rlzoo info` reports nccl_compiled() too.
  EXPECT_EQ(nccl_compiled(), cuda_compiled());
}

TEST(LearnerGroupBackend, AOneLearnerGlooGroupRunsItsCollectives) {
  C10dOptions o;
  o.rendezvous = "127.0.0.1:" + std::to_string(free_loopback_port());
  o.timeout_s = 30;
  C10dGradientReducer group(o);
  EXPECT_EQ(group.backend(), C10dBackend::gloo);
  auto p = torch::tensor({1.0f, 2.0f, 3.0f}).requires_grad_();
  p.mutable_grad() = torch::tensor({0.5f, -1.0f, 4.0f});
  group.reduce({p});  // the mean over one learner
  EXPECT_TRUE(torch::equal(p.grad(), torch::tensor({0.5f, -1.0f, 4.0f})));
  group.synchronize({p});
  EXPECT_TRUE(torch::equal(p.detach(), torch::tensor({1.0f, 2.0f, 3.0f})));
  EXPECT_EQ(group.minimum({7, -2, 5}), (std::vector<std::int64_t>{7, -2, 5}));
}

}  // namespace
}  // namespace rlzoo
