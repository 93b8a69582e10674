// The transformer blocks: causal and padding masks, multi-head shapes, initialisation, errors.
#include "rl/nets/transformer.h"

#include <gtest/gtest.h>

#include "core/common/error.h"

namespace rlzoo {
namespace {

Transformer eval_net(std::int64_t heads = 2) {
  torch::manual_seed(0);
  Transformer net(TransformerOptions{.width = 16, .layers = 2, .heads = heads, .dropout = 0.1});
  gpt2_init(*net);
  net->eval();  // no dropout: outputs are functions of the inputs
  return net;
}

TEST(Transformer, FutureTokensCannotChangeEarlierOutputs) {
  torch::NoGradGuard no_grad;
  auto net = eval_net();
  const auto x = torch::randn({2, 7, 16});
  const auto y = net->forward(x);
  auto x2 = x.clone();
  x2.slice(1, 4) = torch::randn({2, 3, 16}) * 5;
  const auto y2 = net->forward(x2);
  EXPECT_TRUE(torch::allclose(y.slice(1, 0, 4), y2.slice(1, 0, 4), 0, 1e-6));
  // The later outputs do see the change (the test above could not pass by accident).
  EXPECT_GT((y.slice(1, 4) - y2.slice(1, 4)).abs().max().item<double>(), 1e-3);
}

TEST(Transformer, EarlierTokensChangeLaterOutputs) {
  torch::NoGradGuard no_grad;
  auto net = eval_net();
  const auto x = torch::randn({1, 5, 16});
  auto x2 = x.clone();
  x2.select(1, 0) += torch::randn({1, 16});  // not a constant shift: LayerNorm removes those
  const auto d = (net->forward(x) - net->forward(x2)).abs().amax({0, 2});  // [5]
  for (int t = 0; t < 5; ++t) EXPECT_GT(d[t].item<double>(), 1e-4) << "position " << t;
}

TEST(Transformer, PaddedKeysAreIgnored) {
  torch::NoGradGuard no_grad;
  auto net = eval_net();
  const auto x = torch::randn({2, 6, 16});
  auto valid = torch::ones({2, 6}, torch::kBool);
  valid[0].slice(0, 0, 3) = false;  // row 0 is left-padded by 3
  const auto y = net->forward(x, valid);
  auto x2 = x.clone();
  x2[0].slice(0, 0, 3) = torch::randn({3, 16}) * 10;
  const auto y2 = net->forward(x2, valid);
  EXPECT_TRUE(torch::allclose(y[0].slice(0, 3), y2[0].slice(0, 3), 0, 1e-6));
  EXPECT_TRUE(torch::allclose(y[1], y2[1], 0, 0));
  // Left padding then the real tokens equals the real tokens alone.
  const auto alone = net->forward(x[0].slice(0, 3).unsqueeze(0));
  EXPECT_TRUE(torch::allclose(y[0].slice(0, 3), alone[0], 1e-5, 1e-5));
  EXPECT_FALSE(torch::isnan(y).any().item<bool>()) << "fully padded queries must not give NaN";
}

TEST(Transformer, AllPaddedRowGivesFiniteOutputs) {
  torch::NoGradGuard no_grad;
  auto net = eval_net();
  const auto y = net->forward(torch::randn({1, 4, 16}), torch::zeros({1, 4}, torch::kBool));
  EXPECT_TRUE(torch::isfinite(y).all().item<bool>());
}

TEST(Transformer, GradientsReachEveryParameterAndDropoutActsInTraining) {
  auto net = eval_net(4);
  net->train();
  const auto x = torch::randn({3, 5, 16});
  torch::manual_seed(1);
  const auto a = net->forward(x);
  torch::manual_seed(2);
  const auto b = net->forward(x);
  EXPECT_GT((a - b).abs().max().item<double>(), 1e-4) << "dropout is off in training mode";
  a.pow(2).sum().backward();
  for (const auto& p : net->named_parameters()) {
    ASSERT_TRUE(p.value().grad().defined()) << p.key();
    EXPECT_GT(p.value().grad().abs().sum().item<double>(), 0) << p.key();
  }
}

TEST(Transformer, Gpt2InitAndOptionErrors) {
  torch::manual_seed(0);
  Transformer net(TransformerOptions{.width = 64, .layers = 1, .heads = 1});
  gpt2_init(*net, 0.02);
  for (const auto& p : net->named_parameters()) {
    const auto& k = p.key();
    if (k.find("ln") != std::string::npos) {
      EXPECT_TRUE(torch::all(p.value() == (k.ends_with("weight") ? 1.0 : 0.0)).item<bool>()) << k;
    } else if (k.ends_with("bias")) {
      EXPECT_EQ(p.value().abs().sum().item<double>(), 0.0) << k;
    } else {
      EXPECT_NEAR(p.value().std().item<double>(), 0.02, 0.002) << k;
    }
  }
  EXPECT_THROW(Transformer(TransformerOptions{.width = 10, .heads = 3}), UserError);
  EXPECT_THROW(Transformer(TransformerOptions{.layers = 0}), UserError);
  EXPECT_THROW(Transformer(TransformerOptions{.dropout = 1.0}), UserError);
  EXPECT_THROW(Transformer(TransformerOptions{.activation = "nope"}), UserError);
}

}  // namespace
}  // namespace rlzoo
