// LibTorch state through checkpoint directories: a module, an Adam optimizer mid-training, named
// tensors and the CPU generator come back bit for bit, and wrong data gives a UserError that
// names the blob.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "core/checkpoint/reader.h"
#include "core/checkpoint/writer.h"
#include "core/common/error.h"
#include "core/torch/compat.h"
#include "core/torch/tensor_io.h"
#include "tests/support/test_paths.h"

namespace rlzoo {
namespace {

namespace fs = std::filesystem;
using ::testing::AllOf;
using ::testing::HasSubstr;

template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const UserError& e) {
    return e.what();
  }
  return "<no UserError thrown>";
}

// Linear layers plus a BatchNorm, so that buffers (running stats, counter) are covered too.
torch::nn::Sequential make_net(int hidden = 8) {
  return torch::nn::Sequential(torch::nn::Linear(4, hidden), torch::nn::ReLU(), torch::nn::Linear(hidden, 2),
                               torch::nn::BatchNorm1d(2));
}

void train_step(torch::nn::Sequential& net, torch::optim::Optimizer& opt, const torch::Tensor& x) {
  opt.zero_grad();
  net->forward(x).pow(2).mean().backward();
  opt.step();
}

void expect_same_state(const torch::nn::Module& a, const torch::nn::Module& b) {
  const auto pa = a.named_parameters(), pb = b.named_parameters();
  ASSERT_EQ(pa.size(), pb.size());
  for (const auto& p : pa) EXPECT_TRUE(torch::equal(p.value(), pb[p.key()])) << p.key();
  const auto ba = a.named_buffers(), bb = b.named_buffers();
  ASSERT_EQ(ba.size(), bb.size());
  for (const auto& buf : ba) EXPECT_TRUE(torch::equal(buf.value(), bb[buf.key()])) << buf.key();
}

class TensorIoTest : public ::testing::Test {
 protected:
  fs::path root_ = test::make_temp_dir("rlzoo-tensor-io");
  fs::path dir_ = root_ / "ckpt_000000000003";
  void TearDown() override { fs::remove_all(root_); }
};

TEST_F(TensorIoTest, TrainingStateRoundTripsBitForBit) {
  torch::manual_seed(0);
  auto net = make_net();
  torch::optim::Adam opt(net->parameters(), torch::optim::AdamOptions(1e-2));
  for (int i = 0; i < 3; ++i) train_step(net, opt, torch::randn({16, 4}));

  CheckpointWriter w(nlohmann::json{{"step", 3}});
  w.add("model.pt", save_module(*net));
  w.add("optim.pt", save_optimizer(opt));
  w.add("stats.pt", save_tensors({{"obs.mean", torch::arange(4.0)}, {"count", torch::tensor({7}, torch::kLong)}}));
  w.add("rng.pt", save_generator_state());
  w.commit(dir_);
  // What the original process would draw next, and its next update.
  const torch::Tensor expected_rand = torch::rand({5});
  const torch::Tensor x = torch::randn({16, 4});
  train_step(net, opt, x);

  // A "new process": other weights, fresh optimizer, generator moved on.
  torch::manual_seed(123);
  auto net2 = make_net();
  torch::optim::Adam opt2(net2->parameters(), torch::optim::AdamOptions(1e-2));
  const CheckpointReader r = CheckpointReader::open(dir_);
  load_module(*net2, r, "model.pt");
  load_optimizer(opt2, r, "optim.pt");
  const TensorMap stats = load_tensors(r, "stats.pt");
  load_generator_state(r, "rng.pt");

  EXPECT_TRUE(torch::equal(torch::rand({5}), expected_rand));
  EXPECT_TRUE(torch::equal(stats.at("obs.mean"), torch::arange(4.0)));
  EXPECT_TRUE(torch::equal(stats.at("count"), torch::tensor({7}, torch::kLong)));
  EXPECT_EQ(stats.size(), 2u);
  // Same update from the restored state: parameters, buffers and Adam moments/steps all agree.
  train_step(net2, opt2, x);
  expect_same_state(*net, *net2);
  const torch::Tensor p1 = net->parameters()[0];
  const torch::Tensor p2 = net2->parameters()[0];
  ASSERT_NE(optimizer_param_state(opt, p1), nullptr);
  ASSERT_NE(optimizer_param_state(opt2, p2), nullptr);
  const auto& s1 = static_cast<const torch::optim::AdamParamState&>(*optimizer_param_state(opt, p1));
  const auto& s2 = static_cast<const torch::optim::AdamParamState&>(*optimizer_param_state(opt2, p2));
  EXPECT_EQ(s1.step(), 4);
  EXPECT_EQ(s2.step(), 4);
  EXPECT_TRUE(torch::equal(s1.exp_avg_sq(), s2.exp_avg_sq()));
}

TEST_F(TensorIoTest, ModuleOfAnotherShapeIsRejectedAndLeftUnchanged) {
  auto saved = make_net(8);
  CheckpointWriter w;
  w.add("model.pt", save_module(*saved));
  w.commit(dir_);
  auto other = make_net(16);
  const torch::Tensor before = other->parameters()[0].clone();
  const CheckpointReader r = CheckpointReader::open(dir_);
  EXPECT_THAT(error_of([&] { load_module(*other, r, "model.pt"); }),
              AllOf(HasSubstr((dir_ / "model.pt").string()),
                    HasSubstr("parameter '0.weight' has shape [8, 4] in the checkpoint but [16, 4] in the module")));
  EXPECT_TRUE(torch::equal(other->parameters()[0], before));
  EXPECT_EQ(other->parameters()[0].size(0), 16);
}

TEST_F(TensorIoTest, ModuleWithOtherLayersIsRejected) {
  const std::string bytes = save_module(*make_net());
  torch::nn::Sequential smaller(torch::nn::Linear(4, 8));
  EXPECT_THAT(error_of([&] { load_module(*smaller, bytes, "model.pt"); }),
              AllOf(HasSubstr("model.pt:"), HasSubstr("'2' is in the checkpoint but not in the module")));
  torch::nn::Sequential bigger(torch::nn::Linear(4, 8), torch::nn::ReLU(), torch::nn::Linear(8, 2),
                               torch::nn::BatchNorm1d(2), torch::nn::Linear(2, 2));
  EXPECT_THAT(error_of([&] { load_module(*bigger, bytes, "model.pt"); }), HasSubstr("submodule '4' is missing"));
}

TEST_F(TensorIoTest, GarbageBytesAreRejected) {
  auto net = make_net();
  torch::optim::Adam opt(net->parameters());
  const std::string garbage = "definitely not a zip archive";
  EXPECT_THAT(error_of([&] { load_module(*net, garbage, "model.pt"); }),
              AllOf(HasSubstr("model.pt: not a LibTorch archive"), HasSubstr("zip")));
  EXPECT_THAT(error_of([&] { load_optimizer(opt, garbage, "optim.pt"); }), HasSubstr("optim.pt: not a LibTorch"));
  EXPECT_THAT(error_of([&] { load_tensors(garbage, "stats.pt"); }), HasSubstr("stats.pt: not a LibTorch"));
  EXPECT_THAT(error_of([&] { load_generator_state(garbage, "rng.pt"); }), HasSubstr("rng.pt: not a LibTorch"));
  // Valid archives of the wrong kind.
  EXPECT_THAT(error_of([&] { load_generator_state(save_module(*net), "rng.pt"); }),
              HasSubstr("rng.pt: not a generator state"));
  EXPECT_THAT(error_of([&] { load_generator_state(save_tensors({{"state", torch::zeros({3})}}), "rng.pt"); }),
              HasSubstr("rng.pt: cannot restore the random generator"));
}

TEST_F(TensorIoTest, OptimizerOfOtherParametersIsRejectedAndRestored) {
  torch::manual_seed(0);
  auto net = make_net(8);
  torch::optim::Adam opt(net->parameters());
  train_step(net, opt, torch::randn({16, 4}));
  const std::string bytes = save_optimizer(opt);

  auto other = make_net(16);
  torch::optim::Adam other_opt(other->parameters(), torch::optim::AdamOptions(0.5));
  train_step(other, other_opt, torch::randn({16, 4}));
  EXPECT_THAT(error_of([&] { load_optimizer(other_opt, bytes, "optim.pt"); }),
              AllOf(HasSubstr("optim.pt: cannot load into the optimizer"), HasSubstr("exp_avg"),
                    HasSubstr("[8, 4]")));
  // Its own state (and lr) survived, so training can go on.
  EXPECT_DOUBLE_EQ(static_cast<torch::optim::AdamOptions&>(other_opt.param_groups()[0].options()).lr(), 0.5);
  EXPECT_NO_THROW(train_step(other, other_opt, torch::randn({16, 4})));

  torch::nn::Linear fewer(4, 8);
  torch::optim::Adam fewer_opt(fewer->parameters());
  EXPECT_THAT(error_of([&] { load_optimizer(fewer_opt, bytes, "optim.pt"); }), HasSubstr("optim.pt: cannot load"));
}

}  // namespace
}  // namespace rlzoo
