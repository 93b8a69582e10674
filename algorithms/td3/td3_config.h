// TD3 and DDPG hyperparameters: the one source of their defaults, Stable-Baselines3's
// (stable_baselines3/td3/td3.py, td3/policies.py, ddpg/ddpg.py): Adam 1e-3; buffer 1e6;
// learning starts 100; batch 256; tau 0.005; gamma 0.99; one gradient step per env step;
// MLPs [400, 300] ReLU with LibTorch's default initialisation; no action noise unless asked.
// TD3 (Fujimoto et al. 2018): two critics, the actor and the targets updated every
// policy_delay = 2 critic steps, target-policy smoothing noise 0.2 clipped at 0.5. DDPG
// (Lillicrap et al. 2016) is SB3's: TD3 with one critic, no delay and no smoothing, and those
// three keys are not its settings.
#pragma once

#include <optional>
#include <string>

#include "rl/nets/policy_config.h"
#include "rl/off_policy_config_checks.h"
#include "rl/train_frequency.h"
#include "core/config/schema.h"

namespace rlzoo {

struct Td3Config {
  double learning_rate = 1e-3;
  std::int64_t buffer_size = 1'000'000;
  std::int64_t learning_starts = 100;
  std::int64_t batch_size = 256;
  double tau = 0.005;
  double gamma = 0.99;
  TrainFrequency train_freq;
  std::int64_t gradient_steps = 1;
  std::string action_noise = "none";
  double action_noise_sigma = 0.1;
  std::int64_t n_envs = 1;
  std::int64_t n_step = 1;
  std::int64_t policy_delay = 2;
  double target_policy_noise = 0.2;
  double target_noise_clip = 0.5;
  std::int64_t n_critics = 2;
  PolicyConfig policy = [] {
    PolicyConfig p;
    p.hidden = {400, 300};
    p.activation = "relu";
    p.ortho_init = false;
    return p;
  }();

  static void describe(Fields<Td3Config>& f);
};

// DDPG's settings: TD3's without policy_delay, target_policy_noise, target_noise_clip and
// n_critics (1, 0, 0, 1).
struct DdpgConfig : Td3Config {
  DdpgConfig() {
    policy_delay = 1;
    target_policy_noise = 0.0;
    target_noise_clip = 0.0;
    n_critics = 1;
  }
  static void describe(Fields<DdpgConfig>& f);
};

namespace detail {
// &Td3Config::x as a member of the derived C, for Fields<C>.
template <class C, class F>
F C::*member_of(F Td3Config::*p) {
  return static_cast<F C::*>(p);
}

template <class C>
void describe_td3_shared(Fields<C>& f) {
  using detail::member_of;
  f("learning_rate", member_of<C>(&Td3Config::learning_rate), "Adam step size (actor and critics)", Bound::positive());
  f("buffer_size", member_of<C>(&Td3Config::buffer_size), "replay capacity in transitions over all envs",
    Bound::at_least(2));
  f("learning_starts", member_of<C>(&Td3Config::learning_starts),
    "env steps of uniformly random actions before learning starts", Bound::at_least(0));
  f("batch_size", member_of<C>(&Td3Config::batch_size), "transitions per gradient step", Bound::at_least(1));
  f("tau", member_of<C>(&Td3Config::tau), "Polyak coefficient of the target networks (1 = hard copy)",
    Bound{0.0, 1.0, true, false});
  f("gamma", member_of<C>(&Td3Config::gamma), "discount factor", Bound::unit());
  f("train_freq", member_of<C>(&Td3Config::train_freq),
    "vector-env steps between training phases, or [n, episode]: after every n finished episodes (one env)");
  f("gradient_steps", member_of<C>(&Td3Config::gradient_steps),
    "gradient steps per training phase (-1: as many as env steps collected)", Bound::at_least(-1));
  f("action_noise", member_of<C>(&Td3Config::action_noise),
    "exploration noise added to the actor's action in [-1, 1] units, then clipped",
    OneOf{{"none", "normal", "ornstein_uhlenbeck"}});
  f("action_noise_sigma", member_of<C>(&Td3Config::action_noise_sigma),
    "standard deviation of the action noise, in [-1, 1] units", Bound::at_least(0));
  f("n_envs", member_of<C>(&Td3Config::n_envs), "parallel envs", Bound::at_least(1));
  f("n_step", member_of<C>(&Td3Config::n_step), "n-step returns (stopping at episode ends)", Bound::at_least(1));
  f("policy", member_of<C>(&Td3Config::policy), "actor and critic MLPs (hidden, activation)");
  f.check("gradient_steps", [](const C& c) { return gradient_steps_problem(c.gradient_steps); });
  f.check("buffer_size", [](const C& c) { return buffer_size_problem(c.buffer_size, c.n_envs); });
  f.check("train_freq", [](const C& c) { return train_frequency_problem(c.train_freq, c.n_envs); });
  f.check("policy", [](const C& c) { return continuous_policy_problem(c.policy, "TD3 and DDPG"); });
}
}  // namespace detail

inline void Td3Config::describe(Fields<Td3Config>& f) {
  detail::describe_td3_shared(f);
  f("policy_delay", &Td3Config::policy_delay, "critic steps per actor and target update", Bound::at_least(1));
  f("target_policy_noise", &Td3Config::target_policy_noise,
    "standard deviation of the target-policy smoothing noise, in [-1, 1] units", Bound::at_least(0));
  f("target_noise_clip", &Td3Config::target_noise_clip, "the smoothing noise is clipped to +-this",
    Bound::at_least(0));
  f("n_critics", &Td3Config::n_critics, "Q networks (the target takes their minimum)", Bound::at_least(1));
}

inline void DdpgConfig::describe(Fields<DdpgConfig>& f) { detail::describe_td3_shared(f); }

}  // namespace rlzoo
