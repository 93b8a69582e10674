// PPO hyperparameters: the one source of their defaults (Stable-Baselines3's, except
// adam_eps = 1e-5 as in the "37 implementation details"). Validated from a preset's
// `hyperparams:` section.
#pragma once

#include <optional>
#include <string>

#include "rl/nets/policy_config.h"
#include "core/config/schema.h"

namespace rlzoo {

struct PpoConfig {
  std::int64_t n_envs = 1;
  int vector_threads = 1;
  std::int64_t n_steps = 2048;
  std::int64_t batch_size = 64;
  std::int64_t n_epochs = 10;
  double learning_rate = 3e-4;
  std::string lr_schedule = "constant";
  double gamma = 0.99;
  double gae_lambda = 0.95;
  double clip_range = 0.2;
  std::string clip_range_schedule = "constant";
  std::optional<double> clip_range_vf;
  bool normalize_advantage = true;
  double ent_coef = 0.0;
  double vf_coef = 0.5;
  double max_grad_norm = 0.5;
  std::optional<double> target_kl;
  double adam_eps = 1e-5;
  bool normalize_obs = false;
  bool normalize_reward = false;
  double clip_obs = 10.0;
  double clip_reward = 10.0;
  PolicyConfig policy;

  static void describe(Fields<PpoConfig>& f) {
    f("n_envs", &PpoConfig::n_envs, "parallel envs (rollout width)", Bound::at_least(1));
    f("vector_threads", &PpoConfig::vector_threads, "threads stepping the envs (1: synchronous)", Bound::at_least(1));
    f("n_steps", &PpoConfig::n_steps, "steps per env per rollout", Bound::at_least(1));
    f("batch_size", &PpoConfig::batch_size,
      "minibatch size (samples); recurrent policies: whole rollouts of batch_size / n_steps envs (at least 1)",
      Bound::at_least(1));
    f("n_epochs", &PpoConfig::n_epochs, "passes over each rollout", Bound::at_least(1));
    f("learning_rate", &PpoConfig::learning_rate, "Adam step size", Bound::positive());
    f("lr_schedule", &PpoConfig::lr_schedule, "constant, or linear decay to 0 over the run", OneOf{{"constant", "linear"}});
    f("gamma", &PpoConfig::gamma, "discount factor", Bound::unit());
    f("gae_lambda", &PpoConfig::gae_lambda, "GAE lambda (bias/variance trade-off)", Bound::unit());
    f("clip_range", &PpoConfig::clip_range, "policy ratio clipping epsilon", Bound::positive());
    f("clip_range_schedule", &PpoConfig::clip_range_schedule, "constant, or linear decay to 0 over the run",
      OneOf{{"constant", "linear"}});
    f("clip_range_vf", &PpoConfig::clip_range_vf, "value clipping around the old value (null: off)", Bound::positive());
    f("normalize_advantage", &PpoConfig::normalize_advantage, "normalise advantages per minibatch");
    f("ent_coef", &PpoConfig::ent_coef, "entropy bonus coefficient", Bound::non_negative());
    f("vf_coef", &PpoConfig::vf_coef, "value loss coefficient", Bound::non_negative());
    f("max_grad_norm", &PpoConfig::max_grad_norm, "global gradient norm clip", Bound::positive());
    f("target_kl", &PpoConfig::target_kl, "stop the epochs when approx KL exceeds 1.5 x this (null: off)",
      Bound::positive());
    f("adam_eps", &PpoConfig::adam_eps, "Adam epsilon", Bound::positive());
    f("normalize_obs", &PpoConfig::normalize_obs, "running observation normalisation (float Box observations)");
    f("normalize_reward", &PpoConfig::normalize_reward, "scale rewards by the running std of the discounted return");
    f("clip_obs", &PpoConfig::clip_obs, "clip normalised observations to +-this (0: off)", Bound::non_negative());
    f("clip_reward", &PpoConfig::clip_reward, "clip normalised rewards to +-this (0: off)", Bound::non_negative());
    f("policy", &PpoConfig::policy, "network architecture");
  }
};

}  // namespace rlzoo
