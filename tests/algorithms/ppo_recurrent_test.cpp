// Recurrent PPO (policy.recurrent): configuration errors, the update's sequence minibatches
// recomputing the rollout exactly, state resets at episode starts, acting with a state,
// evaluation and checkpoints.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <fmt/ranges.h>


#include "rl/agent.h"
#include "rl/nets/observation.h"
#include "algorithms/builtin.h"
#include "algorithms/ppo/ppo.h"
#include "core/registry/env_registry.h"
#include "envs/builtin.h"
#include "tests/support/test_paths.h"

namespace rlzoo {
namespace {

using ::testing::HasSubstr;
using test::error_of;

class PpoRecurrent : public ::testing::Test {
 protected:
  void SetUp() override {
    register_builtin_envs();
    register_builtin_algorithms();
  }
};

std::vector<std::string> small(const std::string& cell, bool shared = false) {
  return {"hyperparams.n_envs=4",
          "hyperparams.n_steps=64",
          "hyperparams.batch_size=128",  // 2 envs per minibatch
          "hyperparams.n_epochs=2",
          "hyperparams.policy.hidden=[32]",
          "hyperparams.policy.recurrent.cell=" + cell,
          "hyperparams.policy.recurrent.hidden=16",
          std::string("hyperparams.policy.recurrent.shared=") + (shared ? "true" : "false")};
}

PpoAgent& ppo(Agent& agent) { return dynamic_cast<PpoAgent&>(agent); }

TEST_F(PpoRecurrent, BadConfigurationsGiveOneClearErrorEach) {
  EXPECT_THAT(error_of([] { make_agent("ppo", "CartPoleNoVel-v1", {"hyperparams.policy.recurrent.cell=rnn"}); }),
              HasSubstr("key 'hyperparams.policy.recurrent.cell': 'rnn' is not one of: none, lstm, gru"));
  EXPECT_THAT(error_of([] { make_agent("ppo", "CartPoleNoVel-v1", {"hyperparams.policy.recurrent.hidden=0"}); }),
              HasSubstr("key 'hyperparams.policy.recurrent.hidden'"));
  EXPECT_THAT(error_of([] { make_agent("dqn", "CartPole-v1", {"hyperparams.policy.recurrent.cell=lstm"}); }),
              HasSubstr("key 'hyperparams.policy.recurrent.cell': dqn has no recurrent policies (these do: ppo)"));
}

// At the last step of a rollout (parameters not yet updated), the update's sequence minibatches
// give back the rollout's log-probabilities and values: the first ratio is 1. Checked on the
// first rollout (every env starts an episode) and the second (it starts from the state the
// first left, mid-episode).
class CheckRecomputation : public Callback {
 public:
  bool on_step(Agent& agent, std::int64_t num_timesteps) override {
    if (num_timesteps != 256 && num_timesteps != 512) return true;
    PpoAgent& a = ppo(agent);
    const RolloutBuffer& buffer = *a.rollout_buffer();
    const auto starts = buffer.episode_starts();
    if (num_timesteps == 256)
      EXPECT_TRUE(starts[0].all().item<bool>()) << "the first observation of every env starts an episode";
    else
      EXPECT_FALSE(starts[0].all().item<bool>()) << "every env starts an episode: the carried state is untested";
    EXPECT_TRUE(starts.slice(0, 1).any().item<bool>()) << "no episode ended within the rollout: resets untested";
    EXPECT_EQ(a.envs_per_minibatch(), 2);
    const auto batches = a.minibatches();
    EXPECT_EQ(batches.size(), 2u);
    for (const auto& mb : batches) {
      EXPECT_EQ(mb.episode_starts.sizes(), (std::vector<std::int64_t>{64, 2}));
      auto [dist, values] = a.evaluate_minibatch(mb);
      const auto log_probs = dist.log_prob(mb.actions);
      EXPECT_TRUE(torch::allclose(log_probs, mb.old_log_probs, 1e-5, 1e-5))
          << (log_probs - mb.old_log_probs).abs().max().item<double>();
      EXPECT_TRUE(torch::allclose(values, mb.old_values, 1e-5, 1e-5))
          << (values - mb.old_values).abs().max().item<double>();
      // Without the resets the same sequences give other log-probabilities: the rollout reset.
      auto no_resets = mb;
      no_resets.episode_starts = torch::zeros_like(mb.episode_starts);
      auto [dist2, values2] = a.evaluate_minibatch(no_resets);
      if (mb.episode_starts.slice(0, 1).any().item<bool>()) {
        EXPECT_FALSE(torch::allclose(values2, mb.old_values, 1e-5, 1e-5));
      }
    }
    ++checked_;
    return true;
  }
  int checked() const { return checked_; }

 private:
  int checked_ = 0;
};

// Inline, and on 2 actor threads (each with its own replica, or one inference server for both;
// with normalised observations): the actors' states and start flags travel with the rounds, and
// the learner re-runs them.
TEST_F(PpoRecurrent, SequenceMinibatchesRecomputeTheRollout) {
  const std::vector<std::vector<std::string>> backends{
      {},
      {"runtime.actors=2", "runtime.envs_per_actor=2"},
      {"runtime.actors=2", "runtime.envs_per_actor=2", "runtime.inference.max_batch=4"},
      {"runtime.actors=2", "runtime.envs_per_actor=2", "hyperparams.normalize_obs=true"}};
  for (const auto& backend : backends)
    for (const auto& [cell, shared] : {std::pair{"lstm", false}, std::pair{"gru", true}}) {
      SCOPED_TRACE(fmt::format("{} {}", cell, fmt::join(backend, " ")));
      auto opts = small(cell, shared);
      opts.insert(opts.end(), backend.begin(), backend.end());
      auto agent = make_agent("ppo", "CartPoleNoVel-v1", opts);
      agent->set_progress_bar(false);
      EXPECT_TRUE(agent->recurrent());
      CallbackList callbacks;
      auto check = std::make_unique<CheckRecomputation>();
      const auto* c = check.get();
      callbacks.add(std::move(check));
      agent->learn(512, &callbacks);
      EXPECT_EQ(c->checked(), 2);
      EXPECT_EQ(agent->last_training().backend, backend.empty() ? Backend::inline_loop : Backend::threads);
    }
}

TEST_F(PpoRecurrent, ActCarriesTheStateAndResetsItAtEpisodeStarts) {
  auto agent = make_agent("ppo", "CartPoleNoVel-v1", small("lstm"));
  auto& policy = ppo(*agent).policy();
  const auto obs = torch::randn({3, 2});
  ActOptions first;
  first.deterministic = true;
  const ActResult a = agent->act_with_state({obs}, first);
  ASSERT_TRUE(a.recurrent_state.defined());
  EXPECT_EQ(a.recurrent_state.sizes(), policy->initial_state(3).sizes());  // [4 (h, c; actor, critic), 1, 3, 16]
  EXPECT_EQ(a.recurrent_state.size(0), 4);
  EXPECT_FALSE(a.recurrent_state.equal(policy->initial_state(3)));
  // Continuing from that state differs from starting afresh; an episode start forgets it.
  ActOptions next = first;
  next.recurrent_state = a.recurrent_state;
  const ActResult carried = agent->act_with_state({obs}, next);
  const ActResult fresh = agent->act_with_state({obs}, first);
  EXPECT_FALSE(carried.recurrent_state.equal(fresh.recurrent_state));
  next.episode_start = torch::tensor({true, false, true});
  const ActResult reset = agent->act_with_state({obs}, next);
  for (std::int64_t row : {0, 2})
    EXPECT_TRUE(reset.recurrent_state.select(2, row).equal(fresh.recurrent_state.select(2, row)));
  EXPECT_TRUE(reset.recurrent_state.select(2, 1).equal(carried.recurrent_state.select(2, 1)));
  // A state of the wrong shape is a clear error.
  next.recurrent_state = torch::zeros({4, 1, 2, 16});
  EXPECT_THAT(error_of([&] { agent->act_with_state({obs}, next); }), HasSubstr("recurrent_state has shape"));
}

// evaluate() carries the state through each episode and starts each afresh: it matches a
// hand-written loop over act_with_state.
TEST_F(PpoRecurrent, EvaluateCarriesTheStateWithinEpisodes) {
  auto agent = make_agent("ppo", "CartPoleNoVel-v1", small("gru"));
  agent->set_progress_bar(false);
  agent->learn(512);
  const EvalResult r = agent->evaluate(3, true, 77);
  auto env = make_env("CartPoleNoVel-v1");
  std::vector<float> obs(2);
  const Bytes o = std::as_writable_bytes(std::span<float>(obs));
  for (int ep = 0; ep < 3; ++ep) {
    env->reset(77 + static_cast<std::uint64_t>(ep), o);
    ActOptions opts;
    for (bool done = false; !done;) {
      const ActResult out = agent->act_with_state({torch::tensor(obs).view({1, 2})}, opts);
      opts.recurrent_state = out.recurrent_state;
      done = env->step(out.actions.item<std::int64_t>(), o).done();
    }
    EXPECT_EQ(env->info().episode_return, r.returns[static_cast<std::size_t>(ep)]) << "episode " << ep;
  }
}

TEST_F(PpoRecurrent, ContinuousActionsWork) {
  auto agent = make_agent("ppo", "Pendulum-v1", small("gru"));
  agent->set_progress_bar(false);
  agent->learn(512);
  const ActResult a = agent->act_with_state({torch::randn({3, 3})}, {});
  EXPECT_EQ(a.actions.sizes(), (std::vector<std::int64_t>{3, 1}));
  EXPECT_TRUE((a.actions.abs() <= 2.0).all().item<bool>());
  EXPECT_EQ(a.recurrent_state.sizes(), (std::vector<std::int64_t>{2, 1, 3, 16}));  // GRU: actor and critic
}

TEST_F(PpoRecurrent, SaveLoadActsIdenticallyFromTheSameState) {
  auto agent = make_agent("ppo", "CartPoleNoVel-v1", small("lstm"));
  agent->set_progress_bar(false);
  agent->learn(512);
  const std::string dir = test::make_temp_dir("rlzoo-ppo-recurrent-save") + "/agent";
  agent->save(dir);
  auto loaded = load_agent(dir);
  EXPECT_TRUE(loaded->recurrent());
  const auto obs = torch::randn({5, 2});
  ActOptions opts;
  opts.deterministic = false;
  opts.recurrent_state = ppo(*agent).policy()->initial_state(5).normal_();
  torch::manual_seed(3);
  const ActResult a = agent->act_with_state({obs}, opts);
  torch::manual_seed(3);
  const ActResult b = loaded->act_with_state({obs}, opts);
  EXPECT_TRUE(a.actions.equal(b.actions));
  EXPECT_TRUE(a.recurrent_state.equal(b.recurrent_state));
  EXPECT_EQ(agent->evaluate(2).returns, loaded->evaluate(2).returns);
}

}  // namespace
}  // namespace rlzoo
