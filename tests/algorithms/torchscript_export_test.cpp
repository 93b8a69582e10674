// TorchScript export (rl/export/): every network family rlzoo builds, trained briefly,
// saved, loaded back, exported and loaded with torch::jit::load, gives the same actions as
// the agent's act() on observations from real episodes (exactly for discrete actions, within
// 1e-6 for float ones), and the same values where the network has them.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/script.h>

#include <cstring>
#include <filesystem>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>

#include "rl/agent.h"
#include "rl/export/torchscript_export.h"
#include "rl/nets/observation.h"
#include "algorithms/builtin.h"
#include "algorithms/dqn/dqn.h"
#include "algorithms/ppo/ppo.h"
#include "core/registry/env_registry.h"
#include "envs/builtin.h"
#include "tests/support/test_paths.h"

namespace rlzoo {
namespace {

using ::testing::HasSubstr;
using test::error_of;

// Observations of every kind the encoders handle: a Dict of an image (uint8, channels first),
// a Discrete position starting at 1, a float vector, bits and a MultiDiscrete; or a plain
// channels-last image. Discrete(4) actions with a random legal-action mask; random
// observations; episodes of 6 steps.
class PicturesEnv : public Env {
 public:
  explicit PicturesEnv(bool dict) : Env(make_spec(dict)) {}

 protected:
  static EnvSpec make_spec(bool dict) {
    EnvSpec s;
    s.id = dict ? "ExportDict-v0" : "ExportImage-v0";
    s.observation_space = dict ? Space::dict({{"image", Space::box(0, 255, {2, 36, 36}, DType::UInt8)},
                                              {"position", Space::discrete(5, 1)},
                                              {"features", Space::box(-2, 2, {3})},
                                              {"bits", Space::multi_binary({2})},
                                              {"counts", Space::multi_discrete({2, 3})}})
                               : Space::box(0, 255, {36, 36, 3}, DType::UInt8);
    s.action_space = Space::discrete(4);
    s.has_action_mask = dict;
    return s;
  }
  void do_reset(std::optional<std::uint64_t>, Bytes obs) override {
    t_ = 0;
    observe(obs);
  }
  StepResult do_step(ConstBytes action, Bytes obs) override {
    ++t_;
    observe(obs);
    return {static_cast<double>(as_span<const std::int64_t>(action)[0] == 2), t_ >= 6, false};
  }
  void observe(Bytes obs) {
    observation_space().sample(rng(), obs);
    auto m = mutable_action_mask();
    for (auto& legal : m) legal = rng().uniform() < 0.5;
    if (!m.empty()) m[rng().below(m.size())] = 1;
  }

 private:
  int t_ = 0;
};

// Float Box actions with bounds that differ per dimension ([-1, 3] and [0, 0.5]), observed
// through a Dict of a float vector and a Discrete position; random observations, episodes of
// 6 steps.
class BoxActionsEnv : public Env {
 public:
  BoxActionsEnv() : Env(make_spec()) {}

 protected:
  static EnvSpec make_spec() {
    EnvSpec s;
    s.id = "ExportBoxActions-v0";
    s.observation_space = Space::dict({{"features", Space::box(-2, 2, {3})}, {"position", Space::discrete(5, 1)}});
    s.action_space = Space::box({-1.0, 0.0}, {3.0, 0.5}, {2});
    return s;
  }
  void do_reset(std::optional<std::uint64_t>, Bytes obs) override {
    t_ = 0;
    observation_space().sample(rng(), obs);
  }
  StepResult do_step(ConstBytes action, Bytes obs) override {
    ++t_;
    observation_space().sample(rng(), obs);
    return {static_cast<double>(as_span<const float>(action)[1]), t_ >= 6, false};
  }

 private:
  int t_ = 0;
};

class TorchScriptExportTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    register_builtin_envs();
    register_builtin_algorithms();
    static std::once_flag once;
    std::call_once(once, [] {
      for (bool dict : {false, true}) {
        EnvEntry entry;
        entry.factory = [dict](const YAML::Node&, const ConfigContext&) { return std::make_unique<PicturesEnv>(dict); };
        entry.max_episode_steps = 6;
        entry.description = "observations of every kind (tests)";
        register_env(dict ? "ExportDict-v0" : "ExportImage-v0", std::move(entry));
      }
      EnvEntry entry;
      entry.factory = [](const YAML::Node&, const ConfigContext&) { return std::make_unique<BoxActionsEnv>(); };
      entry.max_episode_steps = 6;
      entry.description = "per-dimension Box action bounds (tests)";
      register_env("ExportBoxActions-v0", std::move(entry));
    });
  }
};

// Observations (and legal-action masks, where the env has them) from `count` steps of one env
// taking random actions.
struct Observations {
  std::vector<torch::Tensor> obs;  // [count, ...] per field
  torch::Tensor masks;             // [count, n] bool, or undefined
};

Observations random_episodes(const std::string& env_id, std::int64_t count, std::uint64_t seed = 3) {
  auto env = make_env(env_id);
  const Space& space = env->observation_space();
  const std::size_t row = space.byte_size();
  std::vector<std::uint64_t> storage((row * static_cast<std::size_t>(count) + 7) / 8 + 1);
  auto* base = reinterpret_cast<std::byte*>(storage.data());
  std::vector<std::byte> action(env->action_space().byte_size());
  Rng rng(seed);
  const bool has_masks = env->spec().has_action_mask;
  auto masks = has_masks ? torch::zeros({count, env->action_space().n()}, torch::kBool) : torch::Tensor();
  std::vector<std::byte> obs(row);
  env->reset(seed, obs);
  for (std::int64_t i = 0; i < count; ++i) {
    std::copy(obs.begin(), obs.end(), base + static_cast<std::size_t>(i) * row);
    if (has_masks)
      for (std::int64_t a = 0; a < masks.size(1); ++a) masks[i][a] = env->action_mask()[static_cast<std::size_t>(a)] != 0;
    if (has_masks) {  // a legal random action
      std::int64_t a = 0;
      do a = static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(masks.size(1))));
      while (!env->action_mask()[static_cast<std::size_t>(a)]);
      std::memcpy(action.data(), &a, sizeof a);
    } else {
      env->action_space().sample(rng, action);
    }
    if (env->step(action, obs).done()) env->reset(std::nullopt, obs);
  }
  return {observation_tensors(space, base, count, /*copy=*/true), masks};
}

c10::IValue as_input(const Agent& agent, const std::vector<torch::Tensor>& obs) {
  if (agent.env_spec().observation_space.kind() != SpaceKind::Dict) return obs.at(0);
  return c10::List<torch::Tensor>(obs);
}

// Equal discrete actions, or float values within 1e-6.
void expect_same(const torch::Tensor& expected, const torch::Tensor& got, const std::string& what) {
  ASSERT_EQ(expected.sizes(), got.sizes()) << what;
  ASSERT_EQ(expected.scalar_type(), got.scalar_type()) << what;
  if (expected.is_floating_point()) {
    const double diff = (expected - got).abs().max().item<double>();
    EXPECT_LE(diff, 1e-6) << what;
  } else {
    EXPECT_TRUE(expected.equal(got)) << what << ": " << expected.ne(got).sum().item<std::int64_t>() << " differ";
  }
}

PpoAgent& ppo(Agent& a) { return dynamic_cast<PpoAgent&>(a); }

// The agent after `steps` of learning, saved and loaded back (as `rlzoo export` gets it), and
// its export loaded with torch::jit::load.
struct Exported {
  std::unique_ptr<Agent> agent;
  torch::jit::Module module;
  rlzoo::TorchScriptExport info;
};

Exported learn_and_export(const std::string& algo, const std::string& env, std::vector<std::string> overrides,
                          std::int64_t steps, const std::function<void(Agent&)>& before_export = {}) {
  overrides.push_back("seed=5");
  auto trained = make_agent(algo, env, overrides);
  trained->set_progress_bar(false);
  if (steps > 0) trained->learn(steps);
  const std::string dir = test::make_temp_dir("rlzoo-export-test");
  trained->save(dir + "/agent");
  Exported e;
  e.agent = load_agent(dir + "/agent");
  if (before_export) before_export(*e.agent);
  e.info = export_torchscript(*e.agent, dir + "/policy.pt");
  e.module = torch::jit::load(dir + "/policy.pt");
  return e;
}

std::vector<std::string> small_ppo(std::vector<std::string> extra = {}) {
  std::vector<std::string> o{"hyperparams.n_envs=2", "hyperparams.n_steps=64", "hyperparams.batch_size=64",
                             "hyperparams.n_epochs=2", "hyperparams.policy.hidden=[32, 32]"};
  o.insert(o.end(), extra.begin(), extra.end());
  return o;
}

// forward() (and forward_masked() with the masks given) equal act() on the observations.
void expect_feed_forward_actions(Exported& e, const Observations& o, const torch::Tensor& masks = {}) {
  torch::NoGradGuard no_grad;
  const auto input = as_input(*e.agent, o.obs);
  expect_same(e.agent->act(o.obs), e.module.forward({input}).toTensor(), "forward");
  if (masks.defined()) {
    ActOptions opt;
    opt.action_mask = masks;
    expect_same(e.agent->act(o.obs, opt), e.module.get_method("forward_masked")({input, masks}).toTensor(),
                "forward_masked");
  }
}

// Random legal-action masks with at least one legal action per row.
torch::Tensor random_masks(std::int64_t rows, std::int64_t n) {
  auto m = torch::rand({rows, n}) < 0.5;
  m.index_put_({torch::arange(rows), torch::randint(n, {rows})}, true);
  return m;
}

TEST_F(TorchScriptExportTest, PpoDiscreteMlpActsAndValuesAsTheAgent) {
  auto e = learn_and_export("ppo", "CartPole-v1", small_ppo({"hyperparams.policy.activation=relu"}), 256);
  const auto o = random_episodes("CartPole-v1", 100);
  expect_feed_forward_actions(e, o, random_masks(100, 2));
  torch::NoGradGuard no_grad;
  expect_same(ppo(*e.agent).policy()->value(o.obs), e.module.get_method("value")({o.obs[0]}).toTensor(), "value");

  // The metadata, as the attribute and as the extra file.
  const auto meta = nlohmann::json::parse(e.module.attr("rlzoo_metadata").toStringRef());
  EXPECT_EQ(meta["algorithm"], "ppo");
  EXPECT_EQ(meta["env"], "CartPole-v1");
  EXPECT_EQ(meta["num_timesteps"], 256);
  EXPECT_EQ(meta["action_space"]["type"], "Discrete");
  EXPECT_EQ(meta["recurrent"], false);
  torch::jit::ExtraFilesMap extra{{"rlzoo.json", ""}};
  torch::jit::load(e.info.path, c10::nullopt, extra);
  EXPECT_EQ(nlohmann::json::parse(extra["rlzoo.json"]), meta);
  EXPECT_TRUE(e.module.find_method("forward_masked").has_value());
}

TEST_F(TorchScriptExportTest, PpoContinuousWithObservationNormalisationClipsAsTheAgent) {
  auto e = learn_and_export("ppo", "Pendulum-v1",
                            small_ppo({"hyperparams.normalize_obs=true", "hyperparams.clip_obs=2.5",
                                       "hyperparams.policy.activation=elu", "hyperparams.policy.log_std_init=-1"}),
                            256, [](Agent& agent) {  // means beyond the bounds for some observations
                              torch::NoGradGuard no_grad;
                              for (auto& p : ppo(agent).policy()->named_parameters())
                                if (p.key() == "pi_head.weight") p.value().mul_(300.0);
                            });
  auto o = random_episodes("Pendulum-v1", 100);
  o.obs[0] = o.obs[0] * 3;  // outside the bounds too: normalised values clipped, actions clipped
  torch::NoGradGuard no_grad;
  const auto actions = e.agent->act(o.obs);
  EXPECT_GT((actions.abs() == 2.0f).sum().item<std::int64_t>(), 10) << "too few actions at the bounds";
  EXPECT_GT((actions.abs() < 2.0f).sum().item<std::int64_t>(), 10) << "too few actions inside the bounds";
  expect_feed_forward_actions(e, o);
  EXPECT_FALSE(e.module.find_method("forward_masked").has_value());
  // Values through the normaliser (its formula, from the agent's statistics).
  const auto stats = e.agent->export_policy()->observation_normalization;
  ASSERT_TRUE(stats.has_value());
  const auto normalised = ((o.obs[0].to(torch::kFloat64) - torch::tensor(stats->mean, torch::kFloat64)) /
                           torch::sqrt(torch::tensor(stats->var, torch::kFloat64) + stats->epsilon))
                              .clamp(-2.5, 2.5)
                              .to(torch::kFloat32);
  expect_same(ppo(*e.agent).policy()->value({normalised}), e.module.get_method("value")({o.obs[0]}).toTensor(),
              "value");
}

TEST_F(TorchScriptExportTest, PpoWithImagesAndDictObservationsActsAsTheAgent) {
  for (const std::string env : {"ExportImage-v0", "ExportDict-v0"}) {
    SCOPED_TRACE(env);
    auto e = learn_and_export("ppo", env,
                              small_ppo({"hyperparams.n_steps=16", "hyperparams.batch_size=32",
                                         "hyperparams.policy.cnn_features=32", "hyperparams.policy.shared_trunk=true",
                                         "hyperparams.policy.activation=silu"}),
                              32);
    const auto o = random_episodes(env, 100);
    expect_feed_forward_actions(e, o, o.masks.defined() ? o.masks : random_masks(100, 4));
    torch::NoGradGuard no_grad;
    expect_same(ppo(*e.agent).policy()->value(o.obs), e.module.get_method("value")({as_input(*e.agent, o.obs)}).toTensor(),
                "value");
  }
}

// Steps of 5 envs acting with the agent, the state carried on both sides; masks every other
// step; the states and values compared too.
void expect_recurrent_rollout(Exported& e, const std::string& env_id) {
  torch::NoGradGuard no_grad;
  const std::int64_t batch = 5, steps = 20;
  const auto o = random_episodes(env_id, batch * steps, 11);
  torch::Tensor agent_state, state = e.module.get_method("initial_state")({batch}).toTensor();
  auto starts = torch::ones({batch}, torch::kBool);
  for (std::int64_t t = 0; t < steps; ++t) {
    std::vector<torch::Tensor> obs;
    for (const auto& f : o.obs) obs.push_back(f.slice(0, t * batch, (t + 1) * batch));
    ActOptions opt;
    opt.recurrent_state = agent_state;
    opt.episode_start = starts;
    const auto expected_values =
        ppo(*e.agent)
            .policy()
            ->forward_sequence(obs, agent_state.defined() ? agent_state : ppo(*e.agent).policy()->initial_state(batch),
                               starts.view({1, -1}))
            .values;
    if (t % 2) opt.action_mask = random_masks(batch, 2);
    const ActResult expected = e.agent->act_with_state(obs, opt);
    const auto input = as_input(*e.agent, obs);
    const auto out = t % 2 ? e.module.get_method("forward_masked")({input, state, starts, opt.action_mask})
                           : e.module.forward({input, state, starts});
    const auto result = out.toTuple()->elements();
    expect_same(expected.actions, result.at(0).toTensor(), "actions at step " + std::to_string(t));
    expect_same(expected.recurrent_state, result.at(1).toTensor(), "state at step " + std::to_string(t));
    expect_same(expected_values, e.module.get_method("value")({input, state, starts}).toTensor(),
                "values at step " + std::to_string(t));
    agent_state = expected.recurrent_state;
    state = result.at(1).toTensor();
    starts = torch::rand({batch}) < 0.25;  // some envs start a new episode
  }
}

TEST_F(TorchScriptExportTest, RecurrentPpoCarriesItsStateAsTheAgent) {
  // (cell, the critic reads the actor's RNN, layers, one MLP trunk for both)
  for (const auto& [cell, shared, layers, shared_trunk] : std::vector<std::tuple<std::string, bool, int, bool>>{
           {"lstm", false, 1, false}, {"gru", true, 2, false}, {"lstm", false, 2, true}}) {
    SCOPED_TRACE(cell + (shared ? " shared" : " separate critic") + " layers " + std::to_string(layers) +
                 (shared_trunk ? " shared trunk" : ""));
    auto e = learn_and_export("ppo", "CartPole-v1",
                              small_ppo({"hyperparams.policy.recurrent.cell=" + cell,
                                         "hyperparams.policy.recurrent.hidden=16",
                                         "hyperparams.policy.recurrent.layers=" + std::to_string(layers),
                                         std::string("hyperparams.policy.recurrent.shared=") + (shared ? "true" : "false"),
                                         std::string("hyperparams.policy.shared_trunk=") + (shared_trunk ? "true" : "false")}),
                              128);
    expect_recurrent_rollout(e, "CartPole-v1");
    const auto meta = nlohmann::json::parse(e.module.attr("rlzoo_metadata").toStringRef());
    EXPECT_EQ(meta["recurrent"], true);
    // A state of the wrong shape is refused with a message.
    try {
      e.module.forward({torch::zeros({3, 4}), torch::zeros({1, 1, 3, 16}), torch::zeros({3}, torch::kBool)});
      ADD_FAILURE() << "a state of the wrong shape was accepted";
    } catch (const std::exception& error) {
      EXPECT_THAT(error.what(), HasSubstr("state must be ["));
    }
  }
}

TEST_F(TorchScriptExportTest, DqnPlainAndDuelingGreedyActionsAndQValues) {
  for (const bool dueling : {false, true}) {
    SCOPED_TRACE(dueling ? "dueling" : "plain");
    auto e = learn_and_export("dqn", "CartPole-v1",
                              {"n_timesteps=1000", "hyperparams.n_envs=2", "hyperparams.buffer_size=400",
                               "hyperparams.learning_starts=64", "hyperparams.batch_size=16",
                               "hyperparams.policy.hidden=[32, 32]",
                               std::string("hyperparams.policy.dueling=") + (dueling ? "true" : "false")},
                              300);
    const auto o = random_episodes("CartPole-v1", 100);
    expect_feed_forward_actions(e, o, random_masks(100, 2));
    torch::NoGradGuard no_grad;
    expect_same(dynamic_cast<DqnAgent&>(*e.agent).q_net()->forward(o.obs),
                e.module.get_method("q_values")({o.obs[0]}).toTensor(), "q_values");
  }
}

TEST_F(TorchScriptExportTest, PolicyGradientMlpPolicies) {
  for (const auto& [algo, env] : std::vector<std::pair<std::string, std::string>>{{"gpomdp", "CartPole-v1"},
                                                                                   {"storm_pg", "Pendulum-v1"}}) {
    SCOPED_TRACE(algo + " " + env);
    auto e = learn_and_export(algo, env, {"hyperparams.batch_size=2", "hyperparams.initial_batch=2", "hyperparams.horizon=20"}, 80);
    expect_feed_forward_actions(e, random_episodes(env, 100));
  }
}

// SAC's deterministic action is tanh of the mean taken in float64, TD3's and DDPG's the actor's
// tanh output; both rescaled to the Box's bounds per dimension.
TEST_F(TorchScriptExportTest, OffPolicyContinuousActorsActAsTheAgent) {
  struct Case {
    std::string algo, env, extra;
  };
  for (const Case& c : std::vector<Case>{{"sac", "Pendulum-v1", ""},
                                         {"sac", "ExportBoxActions-v0", ""},
                                         {"sac", "ExportBoxActions-v0", "hyperparams.use_sde=true"},  // mean clipped
                                         {"td3", "ExportBoxActions-v0", ""},
                                         {"ddpg", "Pendulum-v1", ""}}) {
    const std::string& env = c.env;
    SCOPED_TRACE(c.algo + " " + env + " " + c.extra);
    std::vector<std::string> overrides{"hyperparams.learning_starts=32", "hyperparams.batch_size=16",
                                       "hyperparams.policy.hidden=[32, 32]"};
    if (!c.extra.empty()) overrides.push_back(c.extra);
    auto e = learn_and_export(c.algo, env, overrides, 96);
    const auto o = random_episodes(env, 100);
    expect_feed_forward_actions(e, o);
    const auto actions = e.module.forward({as_input(*e.agent, o.obs)}).toTensor();
    EXPECT_GT(actions.std(0).min().item<double>(), 0.0);  // the observations move the actions
    const TorchScriptCheck check = check_torchscript_export(*e.agent, e.info.path, 50);
    EXPECT_TRUE(check.passed()) << check.max_abs_diff;
  }
}

TEST_F(TorchScriptExportTest, TheBuiltInCheckAgreesAndRecordsSamples) {
  auto e = learn_and_export("ppo", "ExportDict-v0",
                            small_ppo({"hyperparams.n_steps=16", "hyperparams.batch_size=32",
                                       "hyperparams.policy.cnn_features=16"}),
                            0);
  const TorchScriptCheck c = check_torchscript_export(*e.agent, e.info.path, 50);
  EXPECT_TRUE(c.passed()) << c.action_mismatches << " " << c.max_abs_diff;
  EXPECT_EQ(c.observations, 50);
  EXPECT_THAT(c.compared, ::testing::ElementsAre("forward", "forward_masked"));
  EXPECT_EQ(c.samples["observations"].size(), 5u);  // one entry per Dict field
  EXPECT_EQ(c.samples["actions"].size(), 50u);
  EXPECT_EQ(c.samples["masks"].size(), 50u);

  auto r = learn_and_export("ppo", "CartPole-v1", small_ppo({"hyperparams.policy.recurrent.cell=gru"}), 0);
  const TorchScriptCheck rc = check_torchscript_export(*r.agent, r.info.path, 100);
  EXPECT_TRUE(rc.passed()) << rc.action_mismatches << " " << rc.max_abs_diff;
  EXPECT_EQ(rc.samples["steps"].size(), 10u);
}

TEST_F(TorchScriptExportTest, ANetworkPartTheGeneratorDoesNotKnowFailsTheExport) {
  auto agent = make_agent("ppo", "CartPole-v1", small_ppo());
  PolicyExport p = *agent->export_policy();
  EXPECT_NO_THROW(generate_torchscript_policy(p));
  p.tensors.emplace_back("pi_trunk.norm.weight", torch::ones({32}));  // e.g. a LayerNorm added to Mlp
  try {
    generate_torchscript_policy(p);
    ADD_FAILURE() << "an unknown tensor was accepted";
  } catch (const std::logic_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("tensor 'pi_trunk.norm.weight' of the network is not used by the TorchScript "
                                    "generator"));
  }
}

TEST_F(TorchScriptExportTest, AlgorithmsWithoutAnExportAreNamedWithThoseThatHaveOne) {
  auto agent = make_agent("varibad", "CartPole-v1");
  const std::string e = error_of([&] { export_torchscript(*agent, test::make_temp_dir("rlzoo-export-none") + "/p.pt"); });
  EXPECT_THAT(e, HasSubstr("a varibad agent cannot be exported; algorithms that can: ddpg, dqn, gpomdp, ppo, sac, "
                           "srvrpg, storm_pg, svrpg, td3"));
  EXPECT_THAT(exportable_algorithms(), ::testing::Contains("ppo"));
}

}  // namespace
}  // namespace rlzoo
