// What the Decision Transformer and BC learn from a small CartPole dataset
// (tests/support/cartpole_dataset.h): a tiny DT imitates the data's balancing episodes and follows
// the return it is asked for; %BC on the best half balances. Each holds for k of n seeds
// (test::expect_k_of_n): one seed's run passes or fails with the BLAS kernel's rounding.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "algorithms/dt/dt_agent.h"
#include "tests/learning/reach_target.h"
#include "tests/support/cartpole_dataset.h"

namespace rlzoo::dt {
namespace {

// Trained for 3000 steps (about 2 s), asked along the data's first balancing episode for what
// is left of its 200 it takes the data's actions (>= 95%); asked for the best return it balances
// (>= 50 over 4 episodes, against 8.75 when asked for 9: a few wrong actions off the data's
// states can tip the pole early; on an AVX2 machine seeds 0-6 gave 67, 147, 83, 192, 218, 273
// and 227); asked for 9 it fails early like the always-left policy (<= 20).
test::SeedOutcome tiny_dt_follows_the_target(const std::string& data, std::int64_t seed) {
  auto agent = make_agent("dt", "CartPole-v1",
                          {"hyperparams.dataset=" + data, "hyperparams.context=5", "hyperparams.width=32",
                           "hyperparams.layers=1", "hyperparams.dropout=0.0", "hyperparams.batch_size=32",
                           "hyperparams.learning_rate=0.003", "hyperparams.warmup_steps=50",
                           "hyperparams.rtg_scale=100", "log_every=100000", "seed=" + std::to_string(seed)});
  agent->set_progress_bar(false);
  agent->learn(3000);
  auto& dt = dynamic_cast<DtAgent&>(*agent);
  EXPECT_DOUBLE_EQ(dt.target_return(), 200.0) << "target 0 asks for the dataset's best return";

  auto env = make_env("CartPole-v1");
  std::vector<std::byte> obs(env->observation_space().byte_size());
  env->reset(100, obs);
  ActOptions opts;
  double remaining = 200;
  int agree = 0, steps = 0;
  for (; steps < 200; ++steps) {
    const auto* o = reinterpret_cast<const float*>(obs.data());
    const std::int64_t scripted = o[2] + 0.5f * o[3] > 0 ? 1 : 0;
    opts.target_return = torch::tensor({static_cast<float>(remaining)});
    const auto out = agent->act_with_state({torch::from_blob(obs.data(), {1, 4}, torch::kFloat32).clone()}, opts);
    opts.recurrent_state = out.recurrent_state;
    agree += out.actions[0].item<std::int64_t>() == scripted;
    const auto r = env->step(scripted, obs);
    remaining -= r.reward;
    if (r.done()) break;
  }

  const auto high = agent->evaluate(4);
  const auto save_dir = test::make_temp_dir("dt_cartpole_agent") + "/agent";
  agent->save(save_dir);
  const auto low = load_agent(save_dir, {"hyperparams.target_return=9"})->evaluate(4);
  // The saved agent (without its dataset: the state statistics travel with it) acts the same,
  // whatever it learned.
  EXPECT_EQ(load_agent(save_dir)->evaluate(4).returns, high.returns) << "seed " << seed;
  return {agree >= 0.95 * steps && high.mean_return() >= 50.0 && low.mean_return() <= 20.0,
          fmt::format("{} of {} actions as the data's (>= 95%), return asked for 200: {} (>= 50), asked for 9: {} "
                      "(<= 20)",
                      agree, steps, high.mean_return(), low.mean_return())};
}

TEST(DtLearning, TinyDtImitatesCartPoleEpisodesAndFollowsTheTargetReturn) {
  register_builtin_envs();
  register_builtin_algorithms();
  const auto data = test::write_cartpole_dataset();
  test::expect_k_of_n(2, 3, "tiny DT on CartPole data",
                      [&](std::int64_t seed) { return tiny_dt_follows_the_target(data, seed); });
}

// %BC on the best half of the steps keeps only balancing episodes: it balances (>= 150 over 4
// episodes after 800 steps).
TEST(DtLearning, BcAndPercentBcTrainOnTheSameData) {
  register_builtin_envs();
  register_builtin_algorithms();
  const auto data = test::write_cartpole_dataset();
  test::expect_k_of_n(2, 3, "%BC on CartPole data", [&](std::int64_t seed) {
    auto agent = make_agent("bc", "CartPole-v1",
                            {"hyperparams.dataset=" + data, "hyperparams.context=1", "hyperparams.pct_traj=0.5",
                             "hyperparams.dropout=0.0", "hyperparams.learning_rate=0.001",
                             "hyperparams.warmup_steps=10", "log_every=100000", "seed=" + std::to_string(seed)});
    agent->set_progress_bar(false);
    agent->learn(800);
    EXPECT_FALSE(agent->recurrent());
    const double mean = agent->evaluate(4).mean_return();
    return test::SeedOutcome{mean >= 150.0, fmt::format("mean return {} (>= 150)", mean)};
  });
}

}  // namespace
}  // namespace rlzoo::dt
