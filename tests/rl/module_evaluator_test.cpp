// ModuleEvaluator: observation rows (and mask flags) in, float rows out, weights refreshed from
// the learner's store only when their version changes.
#include <gtest/gtest.h>

#include "rl/runtime/module_evaluator.h"

namespace rlzoo {
namespace {

TEST(ModuleEvaluator, EvaluatesRowsAndFollowsTheStore) {
  const Space obs = Space::box(-10, 10, {2});
  torch::nn::Linear learner(torch::nn::LinearOptions(2, 1).bias(false)), replica(torch::nn::LinearOptions(2, 1).bias(false));
  {
    torch::NoGradGuard g;
    learner->weight.copy_(torch::tensor({{1.0f, 10.0f}}));
    replica->weight.zero_();
  }
  ModuleParameterStore store;
  ModuleEvaluator eval(obs, 1, replica.ptr(),
                       [replica](const std::vector<torch::Tensor>& x) mutable { return replica->forward(x[0]); }, &store);
  EXPECT_EQ(eval.in_row_bytes(), 8u);
  EXPECT_EQ(eval.out_row_bytes(), 4u);
  std::vector<float> in{1, 2, 3, 4, 5, 6}, out(3);
  ASSERT_TRUE(eval.evaluate(std::as_bytes(std::span(in)), 3, std::as_writable_bytes(std::span(out))));
  EXPECT_EQ(out, (std::vector<float>{0, 0, 0})) << "nothing published yet: the replica's own weights";
  store.publish(snapshot_module(*learner));
  ASSERT_TRUE(eval.evaluate(std::as_bytes(std::span(in)), 3, std::as_writable_bytes(std::span(out))));
  EXPECT_EQ(out, (std::vector<float>{21, 43, 65}));
  EXPECT_EQ(eval.version(), 1u);
  {
    torch::NoGradGuard g;
    learner->weight.mul_(2);  // not published: the replica keeps version 1
  }
  ASSERT_TRUE(eval.evaluate(std::as_bytes(std::span(in)), 3, std::as_writable_bytes(std::span(out))));
  EXPECT_EQ(out[0], 21);
  store.publish(snapshot_module(*learner));
  ASSERT_TRUE(eval.evaluate(std::as_bytes(std::span(in).first(2)), 1, std::as_writable_bytes(std::span(out).first(1))));
  EXPECT_EQ(out[0], 42);
}

TEST(ModuleEvaluator, MasksFollowTheObservationInEachRow) {
  const Space obs = Space::box(-10, 10, {1});
  torch::nn::Linear dummy(1, 1);
  // Output: observation + number of legal actions, and the first legal action.
  ModuleEvaluator eval(obs, 3, 2, dummy.ptr(),
                       [](const std::vector<torch::Tensor>& x, const torch::Tensor& m) {
                         EXPECT_EQ(m.scalar_type(), torch::kBool);
                         const auto legal = m.to(torch::kFloat32).sum(1, true);
                         return torch::cat({x[0] + legal, m.to(torch::kFloat32).argmax(1, true)}, 1);
                       },
                       nullptr);
  EXPECT_EQ(eval.in_row_bytes(), 4u + 3u);
  std::vector<std::byte> in(2 * 7);
  const float o0 = 1.5f, o1 = -2.0f;
  std::memcpy(in.data(), &o0, 4);
  in[4] = std::byte{0}, in[5] = std::byte{1}, in[6] = std::byte{1};
  std::memcpy(in.data() + 7, &o1, 4);
  in[11] = std::byte{1}, in[12] = std::byte{0}, in[13] = std::byte{0};
  std::vector<float> out(4);
  ASSERT_TRUE(eval.evaluate(in, 2, std::as_writable_bytes(std::span(out))));
  EXPECT_EQ(out, (std::vector<float>{3.5f, 1.0f, -1.0f, 0.0f}));
}

}  // namespace
}  // namespace rlzoo
