// The fused small-network paths against LibTorch's own: the fused MLP chain (outputs and every
// gradient, tanh and ReLU, input gradients), its tanh, FusedAdam against torch::optim::Adam (and
// their states loading into each other), zero_gradients and the plain-gradient clip.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <torch/torch.h>

#include <cmath>
#include <limits>
#include <sstream>

#include "rl/gradient_guard.h"
#include "rl/nets/fused_mlp.h"
#include "rl/nets/networks.h"
#include "rl/optim/fused_adam.h"
#include "rl/optim/zero_gradients.h"

namespace rlzoo {
namespace {

std::vector<torch::Tensor> gradients(const std::vector<torch::Tensor>& params) {
  std::vector<torch::Tensor> out;
  for (const auto& p : params) out.push_back(p.grad().clone());
  return out;
}

void expect_close(const torch::Tensor& a, const torch::Tensor& b, const std::string& what, double rtol = 1e-4,
                  double atol = 1e-6) {
  ASSERT_EQ(a.sizes(), b.sizes()) << what;
  EXPECT_TRUE(torch::allclose(a, b, rtol, atol)) << what << ": max abs difference "
                                                 << (a - b).abs().max().item<double>();
}

TEST(FusedTanh, MatchesStdTanhToAFewUlp) {
  std::vector<float> x, y;
  for (float v = -12.0f; v <= 12.0f; v += 0.00137f) x.push_back(v);
  for (float v : {0.0f, -0.0f, 1e-30f, -1e-7f, 0.4999f, 0.5f, 0.5001f, 8.99f, 9.0f, 100.0f, -100.0f}) x.push_back(v);
  y.resize(x.size());
  fused_tanh(x.data(), y.data(), static_cast<std::int64_t>(x.size()));
  double worst = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double exact = std::tanh(static_cast<double>(x[i]));
    const double ulp = std::nextafter(static_cast<float>(std::abs(exact)), 2.0f) - static_cast<float>(std::abs(exact));
    worst = std::max(worst, std::abs(y[i] - exact) / ulp);
  }
  EXPECT_LE(worst, 4.0) << "worst error in float ulps";
  const float special[] = {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                           -std::numeric_limits<float>::infinity()};
  float out[3];
  fused_tanh(special, out, 3);
  EXPECT_TRUE(std::isnan(out[0]));
  EXPECT_EQ(out[1], 1.0f);
  EXPECT_EQ(out[2], -1.0f);
}

// A trunk and head as modules, and the same layers as a fused chain.
struct Chain {
  Mlp trunk;
  torch::nn::Linear head;
  FusedMlp fused;
  Chain(std::int64_t in, std::vector<std::int64_t> hidden, std::int64_t out, const std::string& act)
      : trunk(in, hidden, act), head(hidden.back(), out), fused(layers(trunk, head), act, true) {}
  static std::vector<torch::nn::Linear> layers(const Mlp& t, const torch::nn::Linear& h) {
    auto l = t->linears();
    l.push_back(h);
    return l;
  }
  std::vector<torch::Tensor> params() const {
    auto p = trunk->parameters();
    for (const auto& q : head->parameters()) p.push_back(q);
    return p;
  }
  void zero() {
    for (auto& p : params())
      if (p.grad().defined()) p.mutable_grad().zero_();
  }
};

void check_chain(const std::string& act, std::vector<std::int64_t> hidden, std::int64_t batch) {
  torch::manual_seed(3);
  Chain c(5, hidden, 3, act);
  const auto x = torch::randn({batch, 5}).requires_grad_(true);
  const auto weights = torch::randn({batch, 3});
  ASSERT_TRUE(c.fused.applies_to(x));

  const auto y_ref = c.head->forward(c.trunk->forward(x));
  (y_ref * weights).sum().backward();
  const auto grads_ref = gradients(c.params());
  const auto x_grad_ref = x.grad().clone();
  c.zero();
  x.mutable_grad().zero_();

  const auto y = c.fused.forward(x);
  expect_close(y, y_ref, act + " output");
  (y * weights).sum().backward();
  const auto grads = gradients(c.params());
  for (std::size_t i = 0; i < grads.size(); ++i) expect_close(grads[i], grads_ref[i], act + " gradient " + std::to_string(i));
  expect_close(x.grad(), x_grad_ref, act + " input gradient");

  // A second backward accumulates, as autograd does.
  c.fused.forward(x).mul(weights).sum().backward();
  expect_close(c.params()[0].grad(), 2 * grads_ref[0], act + " accumulated gradient");
}

TEST(FusedMlp, TanhChainMatchesTheModules) { check_chain("tanh", {64, 64}, 37); }
TEST(FusedMlp, ReluChainMatchesTheModules) { check_chain("relu", {16, 32}, 8); }

TEST(FusedMlp, ForwardWithoutGradientsBuildsNoGraph) {
  Chain c(5, {8}, 2, "tanh");
  torch::NoGradGuard no_grad;
  const auto x = torch::randn({4, 5});
  const auto y = c.fused.forward(x);
  EXPECT_FALSE(y.requires_grad());
  expect_close(y, c.head->forward(c.trunk->forward(x)), "no-grad output");
}

// An empty batch gives an empty output, on every path a layer can take (bias first included).
TEST(FusedMlp, AnEmptyBatchGivesAnEmptyOutput) {
  Chain c(4, {64}, 2, "tanh");
  torch::NoGradGuard no_grad;
  const auto y = c.fused.forward(torch::randn({0, 4}));
  EXPECT_EQ(y.sizes(), (std::vector<std::int64_t>{0, 2}));
}

TEST(FusedMlp, OtherActivationsAndInputsTakeTheModulesPath) {
  Chain c(5, {8}, 2, "tanh");
  EXPECT_FALSE(c.fused.applies_to(torch::randn({4, 5}, torch::kFloat64)));
  EXPECT_FALSE(c.fused.applies_to(torch::randn({5, 4}).t()));  // not contiguous
  EXPECT_FALSE(c.fused.applies_to(torch::randn({4, 6})));
  EXPECT_THROW(FusedMlp(Chain::layers(c.trunk, c.head), "gelu", true), UserError);
  EXPECT_FALSE(fused_mlp_activation("elu").has_value());
}

TEST(FusedMlp, ActorCriticAndQNetworkGiveTheModulesResults) {
  torch::manual_seed(5);
  PolicyConfig cfg;
  ActorCritic ac(Space::box(-1, 1, {4}), Space::discrete(2), cfg);
  ASSERT_TRUE(ac->fused_path());
  const std::vector<torch::Tensor> obs{torch::randn({16, 4})};
  auto [d, v] = ac->forward(obs);
  ac->use_fused_path(false);
  auto [d_ref, v_ref] = ac->forward(obs);
  expect_close(d.categorical()->log_probs(), d_ref.categorical()->log_probs(), "policy");
  expect_close(v, v_ref, "values");
  expect_close(ac->value(obs), v_ref, "value()");

  cfg.dueling = true;
  for (bool dueling : {false, true}) {
    cfg.dueling = dueling;
    QNetwork q(Space::box(-1, 1, {4}), Space::discrete(3), cfg);
    ASSERT_TRUE(q->fused_path());
    const auto fused = q->forward(obs);
    q->use_fused_path(false);
    expect_close(fused, q->forward(obs), dueling ? "dueling Q" : "Q");
  }
  cfg.activation = "elu";
  cfg.dueling = false;
  EXPECT_FALSE(QNetwork(Space::box(-1, 1, {4}), Space::discrete(3), cfg)->fused_path());
}

// Adam on the same problem with both optimisers: the same parameters to float rounding after
// 50 steps with weight decay, and each one's saved state loads into the other and goes on alike.
TEST(FusedAdam, FollowsTorchAdamAndSharesItsState) {
  auto make = [] {
    torch::manual_seed(7);
    return torch::nn::Linear(6, 4);
  };
  auto fused_net = make(), ref_net = make();
  const auto opts = torch::optim::AdamOptions(3e-3).weight_decay(1e-2).eps(1e-6);
  FusedAdam fused(fused_net->parameters(), opts);
  torch::optim::Adam ref(ref_net->parameters(), opts);
  const auto x = torch::randn({32, 6}), target = torch::randn({32, 4});
  for (int step = 0; step < 50; ++step) {
    for (auto [net, opt] : {std::pair<torch::nn::Linear*, torch::optim::Optimizer*>{&fused_net, &fused},
                            {&ref_net, &ref}}) {
      opt->zero_grad();
      torch::mse_loss((*net)->forward(x), target).backward();
      opt->step();
    }
    ASSERT_TRUE(fused.last_step_fused());
  }
  for (std::size_t i = 0; i < 2; ++i)
    expect_close(fused_net->parameters()[i], ref_net->parameters()[i], "parameter " + std::to_string(i), 1e-5, 1e-6);

  // torch::optim::Adam's state into FusedAdam: the next steps agree.
  std::stringstream saved;
  torch::serialize::OutputArchive out;
  ref.save(out);
  out.save_to(saved);
  torch::serialize::InputArchive in;
  in.load_from(saved);
  auto resumed_net = make();
  {
    torch::NoGradGuard no_grad;
    for (std::size_t i = 0; i < 2; ++i) resumed_net->parameters()[i].copy_(ref_net->parameters()[i]);
  }
  FusedAdam resumed(resumed_net->parameters(), opts);
  resumed.load(in);
  for (auto [net, opt] : {std::pair<torch::nn::Linear*, torch::optim::Optimizer*>{&resumed_net, &resumed},
                          {&ref_net, &ref}}) {
    opt->zero_grad();
    torch::mse_loss((*net)->forward(x), target).backward();
    opt->step();
  }
  for (std::size_t i = 0; i < 2; ++i)
    expect_close(resumed_net->parameters()[i], ref_net->parameters()[i], "resumed parameter " + std::to_string(i),
                 1e-5, 1e-6);
}

TEST(FusedAdam, AmsgradAndDoubleParametersTakeTorchAdamsStep) {
  auto p = torch::randn({3}, torch::kFloat64).requires_grad_(true);
  FusedAdam a({p}, torch::optim::AdamOptions(0.1));
  p.sum().backward();
  a.step();
  EXPECT_FALSE(a.last_step_fused());
  auto q = torch::randn({3}).requires_grad_(true);
  FusedAdam b({q}, torch::optim::AdamOptions(0.1).amsgrad(true));
  q.sum().backward();
  b.step();
  EXPECT_FALSE(b.last_step_fused());
}

TEST(ZeroGradients, ClearsEveryGradientAsZeroGradDoes) {
  auto p = torch::randn({4}).requires_grad_(true), q = torch::randn({2}, torch::kFloat64).requires_grad_(true);
  torch::optim::SGD opt({p, q}, 0.1);
  (p.sum() + q.sum()).backward();
  zero_gradients(opt);
  EXPECT_TRUE(torch::equal(p.grad(), torch::zeros({4})));
  EXPECT_TRUE(torch::equal(q.grad(), torch::zeros({2}, torch::kFloat64)));
}

TEST(ClipGradients, PlainPathClipsAsClipGradNormDoes) {
  auto p = torch::randn({50}).requires_grad_(true), q = torch::randn({3, 7}).requires_grad_(true);
  (p * torch::randn({50}) * 10).sum().backward();
  (q * torch::randn({3, 7}) * 10).sum().backward();
  auto p_ref = p.grad().clone(), q_ref = q.grad().clone();
  auto rp = torch::zeros({50}).requires_grad_(true), rq = torch::zeros({3, 7}).requires_grad_(true);
  rp.mutable_grad() = p_ref;
  rq.mutable_grad() = q_ref;
  const double ref_norm = torch::nn::utils::clip_grad_norm_({rp, rq}, 0.5);
  const double norm = clip_and_check_gradients({p, q}, 0.5, torch::Tensor(), {"test", 1, 0});
  EXPECT_NEAR(norm, ref_norm, 1e-4 * ref_norm);
  expect_close(p.grad(), rp.grad(), "clipped p");
  expect_close(q.grad(), rq.grad(), "clipped q");
}

}  // namespace
}  // namespace rlzoo
