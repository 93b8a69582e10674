// Env::save_state/load_state, for every registered env: a fresh env loaded mid-episode
// continues exactly like the original (observations, rewards, flags, and later resets through
// the saved Rng).
#include <gtest/gtest.h>

#include <cctype>
#include <cstring>

#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include "core/registry/env_registry.h"
#include "envs/builtin.h"
#include "tests/support/test_paths.h"

namespace rlzoo {
namespace {

class EnvState : public ::testing::TestWithParam<std::string> {};

// A random action; a legal one where the env has an action mask or candidate actions.
void sample_action(const Env& env, Rng& rng, std::vector<std::byte>& act) {
  if (env.spec().candidate_feature_dim > 0) {
    const std::int64_t count = env.candidates().count;
    ASSERT_GT(count, 0);
    const auto a = static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(count)));
    std::memcpy(act.data(), &a, sizeof a);
    return;
  }
  const auto mask = env.action_mask();
  if (mask.empty()) return env.action_space().sample(rng, act);
  std::vector<std::int64_t> legal;
  for (std::size_t i = 0; i < mask.size(); ++i)
    if (mask[i]) legal.push_back(env.action_space().start() + static_cast<std::int64_t>(i));
  ASSERT_FALSE(legal.empty());
  const std::int64_t a = legal[rng.below(legal.size())];
  std::memcpy(act.data(), &a, sizeof a);
}

// The candidate actions of the acting agent, as values (empty where the env has none).
std::vector<float> candidate_features(const Env& env) {
  const CandidateView c = env.candidates();
  if (!c.features) return {};
  return {c.features, c.features + c.count * c.feature_dim};
}

std::vector<std::string> registered_ids() {
  register_builtin_envs();
  return env_registry().names();
}

// Keyword arguments an env requires: the generic MJCF env gets the ant, a model with contacts.
YAML::Node required_kwargs(const std::string& id) {
  if (id == "MJCF-v0") return YAML::Load("{model_path: " + test::source_dir() + "/envs/mujoco/assets/ant.xml}");
  return {};
}

TEST_P(EnvState, LoadedEnvContinuesIdentically) {
  register_builtin_envs();
  auto a = make_env(GetParam(), required_kwargs(GetParam()));
  auto b = make_env(GetParam(), required_kwargs(GetParam()));
  std::vector<std::byte> oa(a->observation_space().byte_size()), ob(oa.size()), act(a->action_space().byte_size());
  Rng rng(4);
  a->reset(17, oa);
  for (int t = 0; t < 37; ++t) {
    sample_action(*a, rng, act);
    if (a->step(ConstBytes(act), oa).done()) a->reset(std::nullopt, oa);
  }
  const nlohmann::json saved = nlohmann::json::parse(a->save_state().dump());  // through text, as in a file
  b->load_state(saved, ob);
  EXPECT_EQ(oa, ob);
  EXPECT_EQ(candidate_features(*a), candidate_features(*b));
  EXPECT_EQ(a->elapsed_steps(), b->elapsed_steps());
  for (int t = 0; t < 600; ++t) {  // crosses episode ends: resets use the restored Rng
    sample_action(*a, rng, act);
    const StepResult ra = a->step(ConstBytes(act), oa), rb = b->step(ConstBytes(act), ob);
    ASSERT_EQ(oa, ob) << t;
    ASSERT_EQ(candidate_features(*a), candidate_features(*b)) << t;
    ASSERT_EQ(ra.reward, rb.reward) << t;
    ASSERT_EQ(ra.terminated, rb.terminated) << t;
    ASSERT_EQ(ra.truncated, rb.truncated) << t;
    if (ra.done()) {
      ASSERT_EQ(a->info().episode_return, b->info().episode_return);
      a->reset(std::nullopt, oa);
      b->reset(std::nullopt, ob);
    }
  }
  // A state saved by another env is rejected.
  auto other = make_env(GetParam() == "CartPole-v1" ? "Pendulum-v1" : "CartPole-v1");
  std::vector<std::byte> oo(other->observation_space().byte_size());
  EXPECT_THROW(other->load_state(saved, oo), UserError);
}

INSTANTIATE_TEST_SUITE_P(EveryRegisteredEnv, EnvState, ::testing::ValuesIn(registered_ids()),
                         [](const auto& info) {
                           std::string s = info.param;
                           for (auto& c : s)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return s;
                         });

}  // namespace
}  // namespace rlzoo
