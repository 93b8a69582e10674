// `rlzoo info`: the build's LibTorch, CUDA, cuDNN, NCCL, the GPUs found and each path's BLAS,
// as lines and as JSON, consistent with each other and with the two LibTorch builds rlzoo
// supports (Debian's 1.13 on the CPU; PyPI's 2.11.0+cu130, scripts/cuda-build).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/support/test_paths.h"

namespace rlzoo {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

test::CommandResult rlzoo(const std::string& args) { return test::run_command(test::cli_quoted() + " " + args); }

TEST(CliInfo, NamesLibTorchCudaNcclGpusAndBlasInLinesAndJson) {
  const auto j_run = rlzoo("info --json");
  ASSERT_EQ(j_run.status, 0) << j_run.err;
  const auto j = nlohmann::json::parse(j_run.out);
  const auto text = rlzoo("info");
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_THAT(text.out, HasSubstr("rlzoo     " + j.at("rlzoo").get<std::string>()));
  EXPECT_FALSE(j.at("blas_hand_written").get<std::string>().empty());
  if (!j.contains("libtorch")) {  // a build without LibTorch
    EXPECT_THAT(text.out, HasSubstr("LibTorch  not built in"));
    return;
  }
  const std::string version = j.at("libtorch");
  EXPECT_THAT(text.out, HasSubstr("LibTorch  " + version + "\n"));
  EXPECT_FALSE(j.at("blas_libtorch").get<std::string>().empty()) << j.dump();
  // One BLAS in the process: the sgemm_ LibTorch calls is the system's libblas.so.3 (OpenBLAS
  // here), as rlzoo's own paths' is, whichever LibTorch this is (core/CMakeLists.txt).
  EXPECT_THAT(j.at("sgemm_library").get<std::string>(), HasSubstr("libblas.so.3")) << j.dump();
  if (version.starts_with("1.13")) {  // Debian's: CPU only, Gloo only
    EXPECT_TRUE(j.at("cuda").is_null());
    EXPECT_FALSE(j.at("nccl").get<bool>());
    EXPECT_EQ(j.at("gpu_problem"), "this LibTorch has no CUDA");
    EXPECT_THAT(text.out, HasSubstr("CUDA      not compiled in"));
  }
  if (version.starts_with("2.11")) {  // PyPI's cu130 build
    ASSERT_TRUE(j.at("cuda").is_string()) << j.dump();
    EXPECT_THAT(j.at("cuda").get<std::string>(), StartsWith("13."));
    EXPECT_THAT(text.out, HasSubstr("CUDA      13."));
    EXPECT_TRUE(j.at("nccl").get<bool>());
    EXPECT_THAT(j.at("cudnn").get<std::string>(), StartsWith("9."));
    EXPECT_THAT(j.at("blas_libtorch").get<std::string>(), HasSubstr("mkl"));
  }
  if (j.at("gpus").empty()) {
    EXPECT_THAT(text.out, HasSubstr("GPUs      no GPU found (" + j.at("gpu_problem").get<std::string>() + ")"));
  } else {
    EXPECT_THAT(text.out, HasSubstr("cuda:0  " + j.at("gpus")[0].get<std::string>()));
  }
}

}  // namespace
}  // namespace rlzoo
