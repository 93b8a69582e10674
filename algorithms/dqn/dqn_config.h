// DQN hyperparameters: the one source of their defaults. Where Stable-Baselines3's DQN has a
// parameter, its default is SB3's (stable_baselines3/dqn/dqn.py, dqn/policies.py: Adam 1e-4,
// buffer 1e6, learning starts 100, batch 32, tau 1, train_freq 4, 1 gradient step, target
// update 10000, epsilon 1 -> 0.05 over 10%, Huber loss, max grad norm 10, MLP [64, 64] ReLU).
// SB3 has no double Q-learning and no n-step returns: they default to off, which is SB3's
// behaviour. Validated from a preset's `hyperparams:` section.
#pragma once

#include <cmath>
#include <optional>
#include <string>

#include "rl/nets/policy_config.h"
#include "rl/off_policy_config_checks.h"
#include "core/config/schema.h"

namespace rlzoo {

struct DqnConfig {
  double learning_rate = 1e-4;
  std::int64_t buffer_size = 1'000'000;
  std::int64_t learning_starts = 100;
  std::int64_t batch_size = 32;
  double tau = 1.0;
  double gamma = 0.99;
  std::int64_t train_freq = 4;
  std::int64_t gradient_steps = 1;
  std::int64_t target_update_interval = 10'000;
  double exploration_fraction = 0.1;
  double exploration_initial_eps = 1.0;
  double exploration_final_eps = 0.05;
  double max_grad_norm = 10.0;
  std::int64_t n_envs = 1;
  bool double_q = false;
  std::int64_t n_step = 1;
  std::string loss = "huber";
  double apex_alpha = 7.0;
  // SB3's DQN network: [64, 64] with ReLU and LibTorch's default initialisation.
  PolicyConfig policy = [] {
    PolicyConfig p;
    p.activation = "relu";
    p.ortho_init = false;
    return p;
  }();

  static void describe(Fields<DqnConfig>& f) {
    f("learning_rate", &DqnConfig::learning_rate, "Adam step size", Bound::positive());
    f("buffer_size", &DqnConfig::buffer_size, "replay capacity in transitions over all envs", Bound::at_least(2));
    f("learning_starts", &DqnConfig::learning_starts, "env steps of uniformly random actions before learning starts",
      Bound::at_least(0));
    f("batch_size", &DqnConfig::batch_size, "transitions per gradient step", Bound::at_least(1));
    f("tau", &DqnConfig::tau, "target update coefficient: 1 = hard copy, < 1 = Polyak averaging",
      Bound{0.0, 1.0, true, false});
    f("gamma", &DqnConfig::gamma, "discount factor", Bound::unit());
    f("train_freq", &DqnConfig::train_freq, "vector-env steps between training phases", Bound::at_least(1));
    f("gradient_steps", &DqnConfig::gradient_steps,
      "gradient steps per training phase (-1: as many as env steps collected)", Bound::at_least(-1));
    f("target_update_interval", &DqnConfig::target_update_interval,
      "env steps between target updates (divided by n_envs into vector steps, as SB3)", Bound::at_least(1));
    f("exploration_fraction", &DqnConfig::exploration_fraction,
      "fraction of the preset's n_timesteps over which epsilon decays linearly", Bound::unit());
    f("exploration_initial_eps", &DqnConfig::exploration_initial_eps, "epsilon at the start", Bound::unit());
    f("exploration_final_eps", &DqnConfig::exploration_final_eps, "epsilon after the decay", Bound::unit());
    f("max_grad_norm", &DqnConfig::max_grad_norm, "global gradient norm clip", Bound::positive());
    f("n_envs", &DqnConfig::n_envs, "parallel envs", Bound::at_least(1));
    f("double_q", &DqnConfig::double_q, "Double DQN: the online net picks the next action, the target net values it");
    f("n_step", &DqnConfig::n_step, "n-step returns (stopping at episode ends)", Bound::at_least(1));
    f("loss", &DqnConfig::loss, "TD loss", OneOf{{"huber", "mse"}});
    f("apex_alpha", &DqnConfig::apex_alpha,
      "with runtime.actors = N > 1, actor i explores with epsilon^(1 + apex_alpha * i / (N - 1)) (Ape-X); 0: all alike",
      Bound::at_least(0));
    f("policy", &DqnConfig::policy, "Q network architecture (policy.dueling for a dueling head)");
    f.check("gradient_steps", [](const DqnConfig& c) { return gradient_steps_problem(c.gradient_steps); });
    f.check("buffer_size", [](const DqnConfig& c) { return buffer_size_problem(c.buffer_size, c.n_envs); });
    f.check("policy", [](const DqnConfig& c) -> std::optional<std::string> {
      if (c.policy.ortho_init)
        return "policy.ortho_init is not supported by DQN (its Q network keeps LibTorch's default init, as SB3)";
      if (c.policy.recurrent.enabled())
        return "policy.recurrent.cell '" + c.policy.recurrent.cell +
               "': DQN has no recurrent policies (recurrent policies: ppo); leave policy.recurrent out";
      return std::nullopt;
    });
  }
};

// SB3's linear schedule (get_linear_fn): epsilon after `num_timesteps` of a run of
// `total_timesteps` env steps.
inline double dqn_exploration_rate(const DqnConfig& c, std::int64_t num_timesteps, std::int64_t total_timesteps);

// Epsilon of actor `actor` of `actors` parallel actors (Ape-X's spread, Horgan et al. 2018,
// applied to the scheduled epsilon): actor 0 keeps the schedule, later ones explore less.
inline double dqn_actor_exploration_rate(const DqnConfig& c, double scheduled, int actor, int actors) {
  if (actors <= 1 || c.apex_alpha == 0.0) return scheduled;
  return std::pow(scheduled, 1.0 + c.apex_alpha * actor / (actors - 1));
}

inline double dqn_exploration_rate(const DqnConfig& c, std::int64_t num_timesteps, std::int64_t total_timesteps) {
  const double progress =
      total_timesteps > 0 ? static_cast<double>(num_timesteps) / static_cast<double>(total_timesteps) : 1.0;
  if (progress >= c.exploration_fraction) return c.exploration_final_eps;
  return c.exploration_initial_eps +
         progress * (c.exploration_final_eps - c.exploration_initial_eps) / c.exploration_fraction;
}

}  // namespace rlzoo
