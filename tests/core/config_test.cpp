// Config validation: every error kind names the file, line, column and key path.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/config/schema.h"
#include "core/config/yaml_io.h"
#include "tests/support/test_paths.h"

namespace rlzoo {
namespace {

using ::testing::HasSubstr;

struct NetConfig {
  std::vector<std::int64_t> hidden = {64, 64};
  std::string activation = "tanh";
  static void describe(Fields<NetConfig>& f) {
    f("hidden", &NetConfig::hidden, "hidden layer sizes", Bound::at_least(1));
    f("activation", &NetConfig::activation, "activation function", OneOf{{"tanh", "relu"}});
  }
};

struct TrainConfig {
  std::string env;
  double learning_rate = 3e-4;
  double gamma = 0.99;
  std::int64_t n_envs = 8;
  std::int64_t batch_size = 64;
  std::int64_t n_steps = 128;
  bool normalize = false;
  std::optional<double> target_kl;
  NetConfig policy;
  YAML::Node env_kwargs;
  static void describe(Fields<TrainConfig>& f) {
    f("env", &TrainConfig::env, "env id", Required{});
    f("learning_rate", &TrainConfig::learning_rate, "Adam step size", Bound::positive());
    f("gamma", &TrainConfig::gamma, "discount factor", Bound::unit());
    f("n_envs", &TrainConfig::n_envs, "parallel envs", Bound::at_least(1));
    f("batch_size", &TrainConfig::batch_size, "minibatch size", Bound::at_least(1));
    f("n_steps", &TrainConfig::n_steps, "steps per env per rollout", Bound::at_least(1));
    f("normalize", &TrainConfig::normalize, "normalise observations");
    f("target_kl", &TrainConfig::target_kl, "early-stop KL (null = off)", Bound::positive());
    f("policy", &TrainConfig::policy, "network");
    f("env_kwargs", &TrainConfig::env_kwargs, "keyword arguments of the env");
    f.check("batch_size", [](const TrainConfig& c) -> std::optional<std::string> {
      if ((c.n_envs * c.n_steps) % c.batch_size != 0)
        return fmt::format("must divide n_envs * n_steps = {}", c.n_envs * c.n_steps);
      return std::nullopt;
    });
  }
};

std::string write_file(const std::string& name, const std::string& text) {
  static const std::string dir = test::make_temp_dir("rlzoo-config");
  const std::string path = dir + "/" + name;
  std::ofstream(path) << text;
  return path;
}

// Loads `text` as file `name` and parses it; returns the error message ("" if none).
std::string error_of(const std::string& text, const std::vector<std::string>& overrides = {},
                     const std::string& name = "preset.yaml") {
  const std::string path = write_file(name, text);
  try {
    YAML::Node root = load_yaml_file(path);
    ConfigContext ctx(path);
    for (const auto& o : overrides) apply_override(root, o, ctx);
    parse_config<TrainConfig>(root, ctx);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(Config, ValidFileFillsFieldsAndKeepsDefaults) {
  const std::string path = write_file("ok.yaml", "env: CartPole-v1\nlearning_rate: 1e-3\npolicy:\n  hidden: [32]\n");
  const auto cfg = parse_config<TrainConfig>(load_yaml_file(path), ConfigContext(path));
  EXPECT_EQ(cfg.env, "CartPole-v1");
  EXPECT_DOUBLE_EQ(cfg.learning_rate, 1e-3);
  EXPECT_DOUBLE_EQ(cfg.gamma, 0.99);
  EXPECT_EQ(cfg.policy.hidden, std::vector<std::int64_t>{32});
  EXPECT_EQ(cfg.policy.activation, "tanh");
  EXPECT_FALSE(cfg.target_kl.has_value());
}

TEST(Config, UnknownKeyNamesKeyLineColumnAndSuggestion) {
  const std::string msg = error_of("env: CartPole-v1\nlearing_rate: 0.1\n");
  EXPECT_THAT(msg, HasSubstr("preset.yaml:2:1"));
  EXPECT_THAT(msg, HasSubstr("key 'learing_rate'"));
  EXPECT_THAT(msg, HasSubstr("unknown key"));
  EXPECT_THAT(msg, HasSubstr("did you mean 'learning_rate'"));
}

TEST(Config, UnknownNestedKeyNamesFullPath) {
  const std::string msg = error_of("env: X\npolicy:\n  hiden: [3]\n");
  EXPECT_THAT(msg, HasSubstr(":3:3"));
  EXPECT_THAT(msg, HasSubstr("key 'policy.hiden'"));
  EXPECT_THAT(msg, HasSubstr("did you mean 'hidden'"));
}

TEST(Config, WrongTypeNamesExpectedType) {
  const std::string msg = error_of("env: X\nn_envs: eight\n");
  EXPECT_THAT(msg, HasSubstr("preset.yaml:2:9"));
  EXPECT_THAT(msg, HasSubstr("key 'n_envs'"));
  EXPECT_THAT(msg, HasSubstr("expected an integer, got 'eight'"));
  EXPECT_THAT(error_of("env: X\nnormalize: maybe\n"), HasSubstr("expected true or false"));
  EXPECT_THAT(error_of("env: X\npolicy: [1, 2]\n"), HasSubstr("expected a mapping, got a list"));
  EXPECT_THAT(error_of("env: X\npolicy:\n  hidden: 64\n"), HasSubstr("expected a list"));
  EXPECT_THAT(error_of("env: X\nlearning_rate: 1.5.2\n"), HasSubstr("expected a number, got '1.5.2'"));
}

TEST(Config, OutOfRangeNamesConstraint) {
  const std::string msg = error_of("env: X\ngamma: 1.5\n");
  EXPECT_THAT(msg, HasSubstr("preset.yaml:2:8"));
  EXPECT_THAT(msg, HasSubstr("key 'gamma'"));
  EXPECT_THAT(msg, HasSubstr("must be in [0, 1]"));
  EXPECT_THAT(error_of("env: X\nn_envs: 0\n"), HasSubstr("must be >= 1"));
  EXPECT_THAT(error_of("env: X\npolicy:\n  hidden: [64, 0]\n"), HasSubstr("key 'policy.hidden[1]'"));
  EXPECT_THAT(error_of("env: X\npolicy:\n  activation: relux\n"), HasSubstr("did you mean 'relu'"));
}

TEST(Config, NonFiniteFloatRejected) {
  EXPECT_THAT(error_of("env: X\nlearning_rate: .nan\n"), HasSubstr("expected a finite number"));
  EXPECT_THAT(error_of("env: X\nlearning_rate: .inf\n"), HasSubstr("expected a finite number"));
}

TEST(Config, DuplicateKeyNamesBothLines) {
  const std::string msg = error_of("env: X\ngamma: 0.9\nn_envs: 2\ngamma: 0.8\n");
  EXPECT_THAT(msg, HasSubstr("preset.yaml:4:1"));
  EXPECT_THAT(msg, HasSubstr("key 'gamma'"));
  EXPECT_THAT(msg, HasSubstr("duplicate key (first defined at line 2)"));
  // Also inside free-form maps that no schema checks.
  EXPECT_THAT(error_of("env: X\nenv_kwargs:\n  g: 1\n  g: 2\n"), HasSubstr("key 'env_kwargs.g'"));
}

TEST(Config, MissingRequiredKeyReportedAtParent) {
  const std::string msg = error_of("gamma: 0.9\n");
  EXPECT_THAT(msg, HasSubstr("missing required key 'env'"));
  EXPECT_THAT(msg, HasSubstr("preset.yaml:1:1"));
}

TEST(Config, CrossFieldCheckNamesKey) {
  const std::string msg = error_of("env: X\nn_envs: 3\nn_steps: 10\nbatch_size: 7\n");
  EXPECT_THAT(msg, HasSubstr("preset.yaml:4:13"));
  EXPECT_THAT(msg, HasSubstr("key 'batch_size'"));
  EXPECT_THAT(msg, HasSubstr("must divide n_envs * n_steps = 30"));
}

TEST(Config, SyntaxErrorNamesFileLineColumn) {
  const std::string msg = error_of("env: X\npolicy: {hidden: [1, 2}\n");
  EXPECT_THAT(msg, HasSubstr("preset.yaml:2:"));
  EXPECT_THAT(msg, HasSubstr("YAML syntax error"));
}

TEST(Config, MissingEmptyAndDirectoryPathsAreClearErrors) {
  EXPECT_THAT(error_of("   \n"), HasSubstr("file is empty"));
  try {
    load_yaml_file("/nonexistent/preset.yaml");
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_THAT(e.what(), HasSubstr("/nonexistent/preset.yaml: no such file"));
  }
  try {
    load_yaml_file(test::source_dir());
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_THAT(e.what(), HasSubstr("is a directory"));
  }
}

TEST(Config, OverridesApplyAndAreValidated) {
  const std::string path = write_file("ov.yaml", "env: CartPole-v1\n");
  YAML::Node root = load_yaml_file(path);
  ConfigContext ctx(path);
  apply_override(root, "policy.hidden=[8, 8]", ctx);
  apply_override(root, "gamma=0.5", ctx);
  const auto cfg = parse_config<TrainConfig>(root, ctx);
  EXPECT_EQ(cfg.policy.hidden, (std::vector<std::int64_t>{8, 8}));
  EXPECT_DOUBLE_EQ(cfg.gamma, 0.5);

  EXPECT_THAT(error_of("env: X\n", {"gamma=2"}), HasSubstr("--set gamma=2: key 'gamma': value 2 is out of range"));
  EXPECT_THAT(error_of("env: X\n", {"policy.actvation=relu"}), HasSubstr("--set policy.actvation=relu: key 'policy.actvation': unknown key"));
  EXPECT_THAT(error_of("env: X\n", {"n_envs=abc"}), HasSubstr("--set n_envs=abc: key 'n_envs': expected an integer"));
  EXPECT_THAT(error_of("env: X\n", {"gamma"}), HasSubstr("expected KEY=VALUE"));
  EXPECT_THAT(error_of("env: X\n", {"env.x=1"}), HasSubstr("'env' is not a mapping"));
}

TEST(Config, FirstDifferenceNamesTheKeyPathAndBothValues) {
  const YAML::Node a = YAML::Load("algo: ppo\nhyperparams: {gamma: 0.99, policy: {hidden: [64, 64]}}\nseed: 1\n");
  EXPECT_FALSE(first_difference(a, YAML::Load("seed: 1\nalgo: ppo\nhyperparams: {policy: {hidden: [64, 64]}, gamma: 0.99}")));
  auto d = first_difference(a, YAML::Load("algo: ppo\nhyperparams: {gamma: 0.99, policy: {hidden: [64, 32]}}\nseed: 1\n"));
  ASSERT_TRUE(d);
  EXPECT_EQ(d->path, "hyperparams.policy.hidden[1]");
  EXPECT_EQ(d->a, "64");
  EXPECT_EQ(d->b, "32");
  d = first_difference(a, YAML::Load("algo: ppo\nhyperparams: {gamma: 0.99, policy: {hidden: [64]}}\nseed: 1\n"));
  ASSERT_TRUE(d);
  EXPECT_EQ(d->path, "hyperparams.policy.hidden");
  EXPECT_EQ(d->a, "[64, 64]");
  d = first_difference(a, YAML::Load("algo: ppo\nhyperparams: {gamma: 0.99, policy: {hidden: [64, 64]}}\n"));
  ASSERT_TRUE(d);
  EXPECT_EQ(d->path, "seed");
  EXPECT_EQ(d->b, "(absent)");
  d = first_difference(a, YAML::Load("[1, 2]"));
  ASSERT_TRUE(d);
  EXPECT_EQ(d->path, "(top level)");
}

TEST(Config, AnchorsAliasesAndMergeKeysWork) {
  const YAML::Node root = load_yaml_string(
      "defaults: &d {gamma: 0.9, n_steps: 64, policy: {hidden: [8]}}\n"
      "small: &s {n_steps: 16}\n"
      "ppo: {<<: [*s, *d], gamma: 0.5}\n"
      "same: *d\n",
      "merge.yaml");
  const YAML::Node ppo = root["ppo"];
  EXPECT_FALSE(ppo["<<"]);
  EXPECT_EQ(ppo["gamma"].as<double>(), 0.5);       // its own key wins
  EXPECT_EQ(ppo["n_steps"].as<int>(), 16);         // the first merged mapping wins
  EXPECT_EQ(ppo["policy"]["hidden"][0].as<int>(), 8);
  EXPECT_EQ(root["same"]["n_steps"].as<int>(), 64);  // a plain alias
  // A merged key is a copy: changing it leaves the anchor alone.
  YAML::Node r = root;
  ConfigContext ctx("merge.yaml");
  apply_override(r, "ppo.policy.hidden=[32]", ctx);
  EXPECT_EQ(root["defaults"]["policy"]["hidden"][0].as<int>(), 8);
  EXPECT_THAT(test::error_of([] { load_yaml_string("a: {<<: 3}\n", "bad.yaml"); }),
              HasSubstr("key 'a.<<': a merge key needs a mapping"));
}

TEST(Config, ResolvedConfigRoundTrips) {
  TrainConfig c;
  c.env = "Pendulum-v1";
  c.learning_rate = 0.1 + 0.2;  // a value with no short decimal form
  c.target_kl = 0.015;
  c.policy.hidden = {256, 256};
  const YAML::Node y = to_yaml(c);
  const auto back = parse_config<TrainConfig>(YAML::Load(YAML::Dump(y)), ConfigContext("resolved"));
  EXPECT_EQ(back.env, c.env);
  EXPECT_EQ(back.learning_rate, c.learning_rate);  // bit-exact
  EXPECT_EQ(back.target_kl, c.target_kl);
  EXPECT_EQ(back.policy.hidden, c.policy.hidden);
}

TEST(Config, DescribeListsEveryFieldWithDefault) {
  const auto lines = describe_config<TrainConfig>();
  ASSERT_EQ(lines.size(), 10u);
  EXPECT_THAT(lines[2], HasSubstr("gamma (number, default 0.99): discount factor"));
}

}  // namespace
}  // namespace rlzoo
