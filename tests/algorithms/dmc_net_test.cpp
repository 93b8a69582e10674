// DouZero's network: parameter counts, the factorised evaluation against DouZero's, and the
// Q-values DouZero's own code computes with its checkpoints (../shared/data/douzero/q_sample).
#include <fstream>
#include <map>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "algorithms/dmc/decision_batch.h"
#include "algorithms/dmc/seat_nets.h"
#include "envs/doudizhu/encoding.h"
#include "tests/support/test_paths.h"

namespace rlzoo::dmc {
namespace {

using namespace doudizhu;

TEST(DouZeroNet, ParameterCountsAreDouZeros) {
  EXPECT_EQ(parameter_count(*DouZeroNet(kLandlordStateDim)), 1457665);
  EXPECT_EQ(parameter_count(*DouZeroNet(kPeasantStateDim)), 1514497);
  std::vector<std::string> names;
  for (const auto& item : DouZeroNet(kLandlordStateDim)->named_parameters()) names.push_back(item.key());
  EXPECT_EQ(names.front(), "lstm.weight_ih_l0");
  EXPECT_EQ(names.back(), "dense6.bias");
}

// A net sensitive to its inputs: default initialisation is nearly flat.
DouZeroNet sensitive_net(std::int64_t state_dim, std::uint64_t seed) {
  torch::manual_seed(seed);
  DouZeroNet net(state_dim);
  torch::NoGradGuard g;
  for (auto& p : net->parameters()) p.mul_(4);
  return net;
}

TEST(DouZeroNet, FactorisedEvaluationEqualsDouZeros) {
  auto net = sensitive_net(kPeasantStateDim, 3);
  const std::int64_t d = 3;
  const auto z = torch::randint(0, 2, {d, 5, 162}).to(torch::kFloat32);
  const auto x = torch::randint(0, 2, {d, kPeasantStateDim}).to(torch::kFloat32);
  const auto actions = torch::randint(0, 2, {7, 54}).to(torch::kFloat32);
  const auto of = torch::tensor({0, 0, 1, 1, 1, 2, 2}, torch::kInt64);
  torch::NoGradGuard g;
  const auto fast = net->q_values(z, x, actions, of);
  const auto slow = net->forward(z.index_select(0, of), torch::cat({x.index_select(0, of), actions}, 1));
  // float32 sums in a different order: relative agreement.
  EXPECT_LT((fast - slow).abs().max().item<float>(), 1e-5f * std::max(1.0f, slow.abs().max().item<float>()));
  EXPECT_GT(slow.std().item<float>(), 1e-3f);  // the comparison is not between constants
}

// Sparse 0/1 inputs as DouZero's features are, with a few other values: the CPU path
// (douzero_inference.h) adds a weight row per nonzero value times that value.
torch::Tensor sparse_inputs(std::vector<std::int64_t> shape, double density) {
  auto t = (torch::rand(shape) < density).to(torch::kFloat32);
  t.view({-1}).index_put_({torch::tensor({3, 17})}, torch::tensor({2.0f, -0.5f}));
  return t;
}

TEST(DouZeroNet, CpuInferencePathAgreesWithLibTorchsAndSeesNewWeights) {
  auto net = sensitive_net(kLandlordStateDim, 4);
  const std::int64_t d = 6, a = 40;
  const auto z = sparse_inputs({d, 5, 162}, 0.02), x = sparse_inputs({d, kLandlordStateDim}, 0.12);
  const auto actions = sparse_inputs({a, 54}, 0.05);
  const auto of = std::get<0>(torch::randint(0, d, {a}, torch::kInt64).sort());
  // With autograd on, q_values runs LibTorch's operations; without, the CPU path.
  const auto compare = [&](const char* when) {
    const auto reference = net->q_values(z, x, actions, of).detach();
    torch::NoGradGuard g;
    const auto fast = net->q_values(z, x, actions, of);
    EXPECT_LT((fast - reference).abs().max().item<float>(), 1e-5f * std::max(1.0f, reference.abs().max().item<float>()))
        << when;
    EXPECT_GT(reference.std().item<float>(), 1e-3f) << when;  // not a comparison of constants
  };
  compare("first call");
  {
    // The transposed first-layer weights are cached: changed weights must be seen.
    torch::NoGradGuard g;
    net->weights().lstm_ih.mul_(-1.5);
    net->weights().dense_w[0].add_(0.05);
  }
  compare("after the weights changed in place");
  // Weights made under InferenceMode keep no version counter: transposed on every call.
  torch::InferenceMode inference;
  DouZeroNet made_in_inference(kLandlordStateDim);
  const auto q1 = made_in_inference->q_values(z, x, actions, of);
  made_in_inference->weights().dense_w[0].mul_(2);
  EXPECT_FALSE(torch::equal(q1, made_in_inference->q_values(z, x, actions, of)));
  // A candidate of no decision is named.
  const auto bad = torch::full({a}, d, torch::kInt64);
  try {
    net->q_values(z, x, actions, bad);
    ADD_FAILURE() << "no error for a candidate of no decision";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("decision_of[0] = 6 is not one of the 6 decisions"), std::string::npos)
        << e.what();
  }
}

TEST(DouZeroNet, SparseForwardGivesForwardsValuesAndGradients) {
  auto net = sensitive_net(kPeasantStateDim, 5);
  const std::int64_t n = 24;
  const auto z = sparse_inputs({n, 5, 162}, 0.02), x = sparse_inputs({n, kPeasantStateDim + 54}, 0.1);
  const auto target = torch::randn({n});
  const auto gradients = [&](bool sparse) {
    for (auto& p : net->parameters()) p.mutable_grad() = torch::Tensor();
    const auto q = sparse ? net->forward_sparse(z, x) : net->forward(z, x);
    torch::mse_loss(q, target).backward();
    std::vector<torch::Tensor> out{q.detach()};
    for (const auto& p : net->parameters()) out.push_back(p.grad().clone());
    return out;
  };
  const auto dense = gradients(false), sparse = gradients(true);
  const auto names = net->named_parameters().keys();
  ASSERT_EQ(dense.size(), names.size() + 1);
  for (std::size_t i = 0; i < dense.size(); ++i) {
    const std::string what = i == 0 ? "q" : "the gradient of " + names[i - 1];
    const float scale = std::max(1e-3f, dense[i].abs().max().item<float>());
    EXPECT_LT((sparse[i] - dense[i]).abs().max().item<float>(), 1e-4f * scale) << what;
    EXPECT_GT(dense[i].abs().max().item<float>(), 0.0f) << what << " is zero: the comparison shows nothing";
  }
}

TEST(DouZeroReference, ImportedCheckpointsGiveDouZerosQValues) {
  const auto shared = test::shared_dir();
  if (!shared) GTEST_SKIP() << "../shared is absent: DouZero checkpoints and Q-values not compared";
  const std::string dir = *shared + "/data/douzero/q_sample";
  SeatNets nets;
  load_douzero_folder(nets, dir);
  std::ifstream in(dir + "/cases.jsonl");
  int cases = 0, actions = 0;
  double worst = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    const auto c = nlohmann::json::parse(line);
    Game g = replay({deal_from_json(c["deal"]), moves_from_json(c["history"], "history")});
    DecisionBatch batch;
    batch.add(g);
    batch.evaluate(nets);
    std::map<std::uint64_t, float> mine;
    for (std::size_t k = 0; k < g.legal_moves().size(); ++k) mine[g.legal_moves()[k].bits()] = batch.q(0, k);
    const auto& legal = c["legal_actions"];
    for (std::size_t i = 0; i < legal.size(); ++i) {
      const auto key = CardCounts::from_cards(legal[i].get<std::vector<int>>()).bits();
      ASSERT_TRUE(mine.count(key)) << c["id"] << " action " << legal[i];
      const double diff = std::abs(mine[key] - c["q"][i].get<double>());
      worst = std::max(worst, diff);
      EXPECT_LE(diff, 1e-4) << c["id"] << " action " << legal[i];
      ++actions;
    }
    const auto best = g.legal_moves()[batch.argmax(0)];
    EXPECT_EQ(best, CardCounts::from_cards(c["argmax_action"].get<std::vector<int>>())) << c["id"];
    ++cases;
  }
  EXPECT_EQ(cases, 20);
  std::cout << "compared " << actions << " Q-values of " << cases << " DouZero situations; largest difference "
            << worst << "\n";
}

TEST(DouZeroReference, BadCheckpointsAreExplainedAndLeaveTheNetsUnchanged) {
  const auto tmp = test::make_temp_dir("dmc_import");
  SeatNets nets;
  const auto before = nets[Seat::Landlord].parameters()[0].clone();
  EXPECT_NE(test::error_of([&] { load_douzero_folder(nets, tmp); }).find("missing landlord.ckpt"), std::string::npos);
  for (const char* name : {"landlord.ckpt", "landlord_up.ckpt", "landlord_down.ckpt"})
    std::ofstream(tmp + "/" + name) << "not a zip";
  EXPECT_NE(test::error_of([&] { load_douzero_folder(nets, tmp); }).find("landlord"), std::string::npos);
  EXPECT_TRUE(torch::equal(before, nets[Seat::Landlord].parameters()[0]));
  // A peasant's file where the landlord's is expected: a shape mismatch, named.
  const auto shared = test::shared_dir();
  if (!shared) return;
  DouZeroNet landlord(kLandlordStateDim);
  const auto err = test::error_of(
      [&] { load_douzero_checkpoint(*landlord, *shared + "/data/douzero/q_sample/landlord_up.ckpt"); });
  EXPECT_NE(err.find("dense1.weight"), std::string::npos) << err;
}

}  // namespace
}  // namespace rlzoo::dmc
