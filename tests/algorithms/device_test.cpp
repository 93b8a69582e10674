// The preset's `device` key on a machine without a GPU (every CI machine): cpu and auto train,
// cuda is refused naming the key, CPU-only learners refuse any GPU, and a malformed name is a
// config error at its line. tests/gpu/ has what needs a GPU.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "rl/agent.h"
#include "core/torch/build_info.h"
#include "core/torch/device.h"
#include "tests/support/builtin_registries.h"
#include "tests/support/test_paths.h"

namespace rlzoo {
namespace {


TEST(Device, ResolvesCpuAndAutoAndRefusesCudaItDoesNotHave) {
  EXPECT_EQ(resolve_device("cpu"), torch::Device(torch::kCPU));
  EXPECT_EQ(resolve_device("auto"), cuda_usable() ? torch::Device(torch::kCUDA) : torch::Device(torch::kCPU));
  EXPECT_NE(test::error_of([] { resolve_device("gpu"); }).find("'gpu' is not a device"), std::string::npos);
  const std::string past_the_end = test::error_of([] { resolve_device(fmt::format("cuda:{}", cuda_device_count())); });
  EXPECT_NE(past_the_end.find("device 'cuda:"), std::string::npos) << past_the_end;
  if (cuda_usable()) GTEST_SKIP() << "this machine has a GPU: the refusals of cuda cannot be checked";
  const std::string cuda = test::error_of([] { resolve_device("cuda"); });
  EXPECT_NE(cuda.find("device 'cuda' asked for"), std::string::npos) << cuda;
  EXPECT_NE(cuda.find("use device: cpu"), std::string::npos) << cuda;
  // The reason is this build's: a CPU LibTorch (Debian's) has no CUDA; a CUDA one (scripts/
  // cuda-build's, on a machine without a GPU) sees none.
  const std::string reason = cuda_compiled() ? "this LibTorch sees no CUDA GPU" : "this LibTorch was built without CUDA";
  EXPECT_NE(cuda.find(reason), std::string::npos) << cuda;
  EXPECT_EQ(cuda_compiled(), torch_build_info().cuda);
}

TEST(Device, ToDeviceAndModuleDeviceStayOnTheCpuHere) {
  auto moved = to_device({torch::ones({2}), torch::Tensor()}, torch::kCPU);
  EXPECT_TRUE(moved[0].is_cpu());
  EXPECT_FALSE(moved[1].defined());
  torch::nn::Linear linear(2, 3);
  EXPECT_EQ(module_device(*linear), torch::Device(torch::kCPU));
  EXPECT_EQ(module_device(torch::nn::Module()), torch::Device(torch::kCPU));
}

TEST(Device, LearnersTakeCpuAndAutoAndNameTheKeyWhenCudaIsMissing) {
  test::register_builtins();
  for (const char* algo : {"dqn", "ppo"}) {
    for (const char* device : {"cpu", "auto"}) {
      auto agent = make_agent(algo, "CartPole-v1", {std::string("device=") + device, "hyperparams.n_envs=1"});
      agent->set_progress_bar(false);
      agent->learn(64);
      EXPECT_GE(agent->num_timesteps(), 64);  // PPO finishes its rollout
    }
    if (cuda_usable()) continue;
    const std::string e = test::error_of([&] { make_agent(algo, "CartPole-v1", {"device=cuda:0"}); });
    EXPECT_NE(e.find("device"), std::string::npos) << e;
    EXPECT_NE(e.find("'cuda:0' asked for"), std::string::npos) << e;
  }
  if (!cuda_usable()) {
    const std::string e = test::error_of([] { make_agent("dmc", "DouDizhu-v0", {"device=cuda"}); });
    EXPECT_NE(e.find("'cuda' asked for"), std::string::npos) << e;
  }
}

TEST(Device, CpuOnlyLearnersRefuseAGpuNamingThemselves) {
  test::register_builtins();
  const std::string storm = test::error_of([] { make_agent("storm_pg", "CartPole-v1", {"device=cuda"}); });
  EXPECT_NE(storm.find("storm_pg trains on the CPU only"), std::string::npos) << storm;
  EXPECT_NE(storm.find("device"), std::string::npos) << storm;
  EXPECT_NO_THROW(make_agent("storm_pg", "CartPole-v1", {"device=auto"}));
}

TEST(Device, AMalformedDeviceIsAConfigErrorAtItsLine) {
  test::register_builtins();
  const std::string dir = test::make_temp_dir("rlzoo-device");
  const std::string path = dir + "/preset.yaml";
  std::ofstream(path) << "algo: ppo\nenv: CartPole-v1\ndevice: gpu\n";
  const std::string e = test::error_of([&] { Agent::from_preset(path); });
  EXPECT_NE(e.find("device"), std::string::npos) << e;
  EXPECT_NE(e.find("'gpu' is not a device"), std::string::npos) << e;
  EXPECT_NE(e.find(":3"), std::string::npos) << "the line of the key: " << e;
}

TEST(Device, AnAgentTrainedOnCudaLoadsOnTheCpuWithAWarning) {
  test::register_builtins();
  if (cuda_usable()) GTEST_SKIP() << "this machine has a GPU";
  const std::string dir = test::make_temp_dir("rlzoo-device-load");
  auto agent = make_agent("ppo", "CartPole-v1", {"device=cpu"});
  agent->save(dir + "/agent");
  // What a GPU-trained agent's saved preset says (its tensors load onto any device).
  std::unique_ptr<Agent> loaded;
  ASSERT_NO_THROW(loaded = load_agent(dir + "/agent", {"device=cuda"}));
  EXPECT_EQ(loaded->config()["device"].as<std::string>(), "cpu");
  std::vector<torch::Tensor> obs{torch::zeros({2, 4})};
  ActOptions det;
  det.deterministic = true;
  EXPECT_TRUE(torch::equal(loaded->act(obs, det), agent->act(obs, det)));
}

}  // namespace
}  // namespace rlzoo
